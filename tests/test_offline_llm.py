"""Tests for the offline, scripted OpenAI-compatible model, driven by the real openai client."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import openai
import pytest

from agent_harness.agent.llm.offline import MODEL_NAME, OfflineModel, start_offline_model
from agent_harness.agent.llm.scenarios import SCENARIOS, find_scenario
from tests.deadlines import PATIENCE_S

ALL_TOOLS = [
    "run_sql",
    "search_knowledge",
    "remember",
    "exec_js",
    "load_skill",
    "list_skills",
    "fetch_tool_output",
    "delayed_voyages",
    "vessel_position",
    "cargo_value",
    "containers_on_hold",
    "hazmat_containers",
    "container_manifest",
]


def tools(*names: str) -> list[dict]:
    """OpenAI function schemas for ``names`` (all demo tools when none are given)."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"The {name} tool.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for name in names or ALL_TOOLS
    ]


@pytest.fixture
def model():
    with OfflineModel() as offline:
        yield offline


@pytest.fixture
def client(model):
    return openai.OpenAI(
        base_url=model.base_url, api_key="offline", timeout=PATIENCE_S, max_retries=0
    )


def ask(client, messages, **kwargs):
    kwargs.setdefault("tools", tools())
    return client.chat.completions.create(model=MODEL_NAME, messages=messages, **kwargs)


def user(text: str) -> list[dict]:
    return [
        {"role": "system", "content": "You are a supply chain agent."},
        {"role": "user", "content": text},
    ]


def with_results(messages, response, *outputs: str) -> list[dict]:
    """Append the assistant's tool calls and one tool message per call."""
    message = response.choices[0].message
    calls = [call.model_dump() for call in message.tool_calls]
    messages = [*messages, {"role": "assistant", "content": message.content, "tool_calls": calls}]
    for call, output in zip(message.tool_calls, outputs, strict=True):
        messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
    return messages


def only_call(response):
    assert response.choices[0].finish_reason == "tool_calls"
    (call,) = response.choices[0].message.tool_calls
    return call.function.name, json.loads(call.function.arguments)


@pytest.mark.parametrize(
    ("question", "name", "arguments"),
    [
        (
            "Which voyages are delayed in the Pacific?",
            "delayed_voyages",
            {"ocean_region": "PACIFIC"},
        ),
        ("Where is the vessel Ever Given now?", "vessel_position", {"vessel": "Ever Given"}),
        ("Where is the vessel MSC Oscar?", "vessel_position", {"vessel": "MSC Oscar"}),
        (
            "What does capacity_teu mean?",
            "search_knowledge",
            {"query": "What does capacity_teu mean?", "k": 5},
        ),
        (
            "In which units is unit_value_cents stored?",
            "search_knowledge",
            {"query": "In which units is unit_value_cents stored?", "k": 5},
        ),
        (
            "What is the total cargo value of voyage VOY-0042?",
            "cargo_value",
            {"voyage": "VOY-0042"},
        ),
        ("Which containers are on customs hold?", "containers_on_hold", {}),
        ("List hazardous containers", "hazmat_containers", {}),
        (
            "Show the full manifest of container MSCU1234567",
            "container_manifest",
            {"container_no": "MSCU1234567"},
        ),
        ("Which skills help with port congestion?", "list_skills", {"query": "port congestion"}),
        (
            "Remember that reefer containers need power at the terminal.",
            "remember",
            {"content": "reefer containers need power at the terminal", "kind": "note"},
        ),
    ],
)
def test_scenario_calls_the_scripted_tool(client, question, name, arguments):
    assert only_call(ask(client, user(question))) == (name, arguments)


def test_carrier_question_runs_the_scripted_sql(client):
    name, arguments = only_call(ask(client, user("How many vessels does each carrier have?")))
    assert name == "run_sql"
    assert arguments["sql"].startswith("SELECT c.name, COUNT(*) AS vessels")
    assert "GROUP BY c.name ORDER BY vessels DESC" in arguments["sql"]


def test_percentile_runs_javascript_with_the_given_numbers(client):
    question = "Compute the 90th percentile of 3, 7, 1, 9, 12"
    name, arguments = only_call(ask(client, user(question)))
    assert name == "exec_js"
    assert "const values = [3, 7, 1, 9, 12];" in arguments["code"]
    assert "const p = 90;" in arguments["code"]


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Compute the 90th percentile of voyage delays", "exec_js"),
        ("Remember that Pacific voyages are often delayed", "remember"),
        ("Which skills help with delayed voyages?", "list_skills"),
    ],
)
def test_action_requests_win_over_the_data_they_mention(client, question, name):
    assert only_call(ask(client, user(question)))[0] == name


def test_percentile_without_numbers_uses_sample_values(client):
    name, arguments = only_call(ask(client, user("Compute the 90th percentile of voyage delays")))
    assert name == "exec_js" and "const values = [" in arguments["code"]


def test_tool_result_leads_to_a_final_answer_quoting_it(client):
    messages = user("Which voyages are delayed in the Pacific?")
    first = ask(client, messages)
    output = '{"rows": [["V-PAC-007", "Shanghai", "Los Angeles"]], "row_count": 1}'
    final = ask(client, with_results(messages, first, output))
    assert final.choices[0].finish_reason == "stop"
    assert not final.choices[0].message.tool_calls
    text = final.choices[0].message.content
    assert text.startswith("[offline replay]")
    assert "delayed_voyages" in text
    assert "V-PAC-007" in text


def test_question_after_a_label_is_matched_despite_context(client):
    context = "Known skills: port-congestion, hazmat-handling.\nMemory: units are in cents."
    text = f"{context}\n\nQuestion: Where is the vessel Ever Given now?\n\nUse the tools."
    messages = [{"role": "user", "content": text}]
    assert only_call(ask(client, messages)) == ("vessel_position", {"vessel": "Ever Given"})


def test_forced_final_answer_quotes_the_results_so_far(client):
    messages = user("Which skills help with port congestion?")
    first = ask(client, messages)
    messages = with_results(messages, first, '[{"name": "berth-planning"}]')
    final = client.chat.completions.create(model=MODEL_NAME, messages=messages)
    text = final.choices[0].message.content
    assert text.startswith("[offline replay]") and "berth-planning" in text


def test_long_tool_output_is_quoted_truncated(client):
    messages = user("List hazardous containers")
    first = ask(client, messages)
    final = ask(client, with_results(messages, first, "HAZMAT " * 500))
    text = final.choices[0].message.content
    assert "HAZMAT" in text and "…" in text
    assert len(text) < 600


@pytest.mark.parametrize("extra", [{}, {"tools": tools(), "tool_choice": "none"}])
def test_no_tools_or_tool_choice_none_answers_at_once(client, extra):
    messages = user("Which voyages are delayed in the Pacific?")
    response = client.chat.completions.create(model=MODEL_NAME, messages=messages, **extra)
    assert response.choices[0].finish_reason == "stop"
    assert response.choices[0].message.content.startswith("[offline replay]")


def test_unknown_question_searches_knowledge_then_answers(client):
    messages = user("Tell me a joke about tugboats")
    first = ask(client, messages)
    assert only_call(first) == (
        "search_knowledge",
        {"query": "Tell me a joke about tugboats", "k": 5},
    )
    final = ask(client, with_results(messages, first, "no tugboat jokes in the catalog"))
    text = final.choices[0].message.content
    assert text.startswith("[offline replay] No scripted scenario for this question")
    assert "no tugboat jokes in the catalog" in text


def test_unknown_question_without_search_answers(client):
    response = ask(client, user("Tell me a joke"), tools=tools("run_sql"))
    assert response.choices[0].message.content.startswith("[offline replay] No scripted scenario")


def test_tool_not_offered_falls_back_to_search_then_answer(client):
    question = "Which voyages are delayed in the Pacific?"
    assert only_call(ask(client, user(question), tools=tools("search_knowledge", "run_sql")))[
        0
    ] == ("search_knowledge")
    response = ask(client, user(question), tools=tools("run_sql"))
    assert response.choices[0].finish_reason == "stop"


def test_manifest_follows_the_offload_hint_with_the_previous_call_id(client):
    messages = user("Show the full manifest of container MSCU1234567")
    first = ask(client, messages)
    call_id = first.choices[0].message.tool_calls[0].id
    cut = f"[{{...}}...[+9000 bytes. full output: fetch_tool_output(tool_call_id='{call_id}')]"
    messages = with_results(messages, first, cut)
    second = ask(client, messages)
    assert only_call(second) == ("fetch_tool_output", {"tool_call_id": call_id})
    final = ask(client, with_results(messages, second, '{"tool_output": "full manifest"}'))
    text = final.choices[0].message.content
    assert text.startswith("[offline replay]") and "fetch_tool_output" in text


def test_manifest_without_offload_answers_after_one_call(client):
    messages = user("Show the full manifest of container MSCU1234567")
    first = ask(client, messages)
    final = ask(client, with_results(messages, first, '{"items": []}'))
    assert final.choices[0].finish_reason == "stop"


def test_skills_loads_the_first_listed_skill(client):
    messages = user("Which skills help with port congestion?")
    first = ask(client, messages)
    listing = json.dumps([{"name": "berth-planning", "description": "..."}, {"name": "other"}])
    second = ask(client, with_results(messages, first, listing))
    assert only_call(second) == ("load_skill", {"name": "berth-planning"})


def test_enqueued_responses_come_first_in_order(model, client):
    model.enqueue({"tool_calls": [{"name": "run_sql", "arguments": {"sql": "SELECT 1 FROM dual"}}]})
    model.enqueue("scripted text")
    messages = user("Which voyages are delayed in the Pacific?")
    assert only_call(ask(client, messages)) == ("run_sql", {"sql": "SELECT 1 FROM dual"})
    assert ask(client, messages).choices[0].message.content == "scripted text"
    assert only_call(ask(client, messages))[0] == "delayed_voyages"


def test_enqueue_rejects_what_it_cannot_serve(model):
    with pytest.raises(TypeError):
        model.enqueue(42)
    with pytest.raises(ValueError):
        model.enqueue({"tool_calls": [{"arguments": {}}]})


def test_requests_are_recorded(model, client):
    messages = user("List hazardous containers")
    ask(client, messages, tool_choice="auto")
    assert len(model.requests) == 1
    assert model.requests[0]["messages"] == messages
    assert model.requests[0]["tool_choice"] == "auto"
    model.reset()
    assert model.requests == []


def test_models_endpoint_lists_the_offline_model(client):
    assert [m.id for m in client.models.list()] == [MODEL_NAME]


def post(model, path: str, data: bytes) -> tuple[int, dict]:
    url = model.base_url.removesuffix("/v1") + path
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize("data", [b"{not json", b"[1, 2]", b'{"messages": []}', b"\xff\xfe"])
def test_malformed_body_is_a_400_error(model, client, data):
    status, payload = post(model, "/v1/chat/completions", data)
    assert status == 400
    assert payload["error"]["type"] == "invalid_request_error"
    assert only_call(ask(client, user("List hazardous containers")))[0] == "hazmat_containers"


def test_unknown_path_is_a_404(model):
    status, payload = post(model, "/v1/embeddings", b"{}")
    assert status == 404
    assert "unknown path" in payload["error"]["message"].lower()


def test_streaming_is_refused(client):
    with pytest.raises(openai.BadRequestError, match="Streaming is not supported"):
        ask(client, user("List hazardous containers"), stream=True)


def test_concurrent_conversations_do_not_interfere(client):
    questions = {
        "Which voyages are delayed in the Pacific?": "delayed_voyages",
        "Which containers are on customs hold?": "containers_on_hold",
        "List hazardous containers": "hazmat_containers",
        "Where is the vessel Ever Given now?": "vessel_position",
    }
    seen: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def converse(question: str) -> None:
        try:
            for _ in range(5):
                messages = user(question)
                first = ask(client, messages)
                final = ask(client, with_results(messages, first, f"output for {question}"))
                seen.setdefault(question, []).append(final.choices[0].message.content)
                assert only_call(first)[0] == questions[question]
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=converse, args=(q,)) for q in questions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PATIENCE_S)
    assert not errors
    for question, answers in seen.items():
        assert len(answers) == 5
        assert all(f"output for {question}" in answer for answer in answers)


def test_tool_call_ids_are_deterministic_and_unique(client):
    messages = user("Which skills help with port congestion?")
    first = ask(client, messages).choices[0].message.tool_calls[0].id
    assert first.startswith("call_")
    assert ask(client, messages).choices[0].message.tool_calls[0].id == first
    other = ask(client, user("Which skills help with berth planning?"))
    assert other.choices[0].message.tool_calls[0].id != first
    second = ask(client, with_results(messages, ask(client, messages), '[{"name": "x"}]'))
    assert second.choices[0].message.tool_calls[0].id != first
    # The same question asked again later in the conversation gets fresh ids.
    turn = with_results(messages, ask(client, messages), "[]")
    turn += [{"role": "assistant", "content": "No skills."}, messages[-1]]
    assert ask(client, turn).choices[0].message.tool_calls[0].id != first


def test_stop_frees_the_server():
    offline = OfflineModel().start()
    client = openai.OpenAI(
        base_url=offline.base_url, api_key="offline", timeout=PATIENCE_S, max_retries=0
    )
    assert ask(client, user("List hazardous containers")).choices
    thread = offline._thread
    offline.stop()
    offline.stop()  # stopping twice is harmless
    assert not offline.running and not thread.is_alive()
    with pytest.raises(openai.APIConnectionError):
        ask(client, user("List hazardous containers"))
    with pytest.raises(RuntimeError, match="start"):
        offline.base_url  # noqa: B018


def test_shared_model_is_a_single_running_instance():
    first = start_offline_model()
    assert start_offline_model() is first and first.running


def test_every_scenario_has_a_unique_name_and_steps():
    names = [scenario.name for scenario in SCENARIOS]
    assert len(names) == len(set(names))
    assert all(scenario.steps and scenario.answer_hint for scenario in SCENARIOS)
    assert find_scenario("Tell me a joke") is None
