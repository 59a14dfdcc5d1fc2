"""The glass box (agent_harness/glass_box): the panel's live trail and context meter from the
turn hooks, threads reopened from the provenance tables, token streaming, failures shown."""

from __future__ import annotations

import inspect
import json

import httpx
import openai
import pytest

from agent_harness.agent.agent_loop import agent_turn
from agent_harness.agent.turns import TurnHooks
from agent_harness.glass_box import (
    PARTS,
    STAGES,
    GlassBox,
    PanelHooks,
    StreamingLLM,
    context_budget,
    render_trail_html,
    threads,
    window_for,
)
from agent_harness.glass_box.budget import manifest_span
from agent_harness.glass_box.page import chat_command
from agent_harness.parts.token_count import count_tokens, schemas_tokens

MANIFEST_QUESTION = "Show the manifest of container {}"


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


@pytest.fixture(scope="module")
def container(h):
    from agent_harness.agent.strategy_eval import demo_questions

    question = next(q.question for q in demo_questions(h) if "manifest" in q.question)
    return question.rsplit(" ", 1)[-1]


def _nodes(tree, kind):
    found = []

    def walk(nodes):
        for node in nodes:
            if node["kind"] == kind:
                found.append(node)
            walk(node["children"])

    walk(tree["events"])
    return found


# --- the hooks ----------------------------------------------------------------------------------
def test_the_panel_hooks_implement_every_stage_of_a_turn():
    stages = {n for n, f in inspect.getmembers(TurnHooks, inspect.isfunction)}
    assert stages - {"on_turn_error"} <= set(STAGES), "a stage of TurnHooks the panel misses"
    for stage in STAGES:  # its own method, not the base class's no-op
        assert stage in PanelHooks.__dict__, stage


def test_a_turn_is_drawn_live_stage_by_stage(h, container):
    seen = []

    def on_change(hooks):
        seen.append((hooks.timings and None, json.dumps(hooks.tree, default=str)))

    hooks = PanelHooks(h, on_change=on_change)
    question = MANIFEST_QUESTION.format(container)
    turn = agent_turn(h, question, "gb-live", hooks=[*h.turn_hooks, hooks])
    stages = [s for s, _ in hooks.timings]
    assert stages[:3] == ["on_turn_start", "on_tools_offered", "before_model_step"]
    assert stages[-1] == "on_turn_end" and stages.count("on_tool_call") == len(turn.tool_calls)
    # live: the tool call was on the panel before the answer was
    first_call = next(i for i, (_, tree) in enumerate(seen) if '"kind": "tool_call"' in tree)
    assert '"kind": "answer"' not in seen[first_call][1] and '"kind": "answer"' in seen[-1][1]
    tree = hooks.tree
    hits = _nodes(tree, "memory_hit")
    assert hits and all(isinstance(n["detail"]["score"], float) for n in hits)
    assert all(n["detail"]["kind"] for n in hits)
    assert _nodes(tree, "skills")[0]["detail"]["manifest"], "the skills of the manifest"
    offered = _nodes(tree, "tools_offered")[0]
    assert offered["detail"]["strategy"] == "retrieve"
    assert [n["name"] for n in offered["children"]] == turn.offered_names
    assert sum(n["detail"]["tokens"] for n in offered["children"]) == schemas_tokens(turn.offered)
    steps = _nodes(tree, "model_step")
    assert len(steps) == len(turn.steps)
    assert all(s["detail"]["usage"]["prompt_tokens"] > 0 and s["duration_ms"] > 0 for s in steps)
    calls = _nodes(tree, "tool_call")
    assert [(c["name"], c["detail"]["arguments"]) for c in calls] == [
        (r.name, r.arguments) for r in turn.tool_calls
    ]
    assert all(c["ok"] and c["detail"]["breaker"] == "closed" for c in calls)
    assert all(c["duration_ms"] is not None for c in calls)
    offload = _nodes(tree, "offload")[0]["detail"]
    record = next(r for r in turn.tool_calls if r.offloaded)
    assert (offload["memory_id"], offload["call_id"]) == (record.memory_id, record.id)
    assert tree["status"] == "answered" and tree["answer"] == turn.answer
    # the stored trail agrees with the live one on what the panel shows of it
    stored = h.provenance.explain(turn.turn_id)
    assert [c["name"] for c in _nodes(stored, "tool_call")] == [c["name"] for c in calls]
    assert [m["detail"]["memory_id"] for m in _nodes(stored, "memory_hit")] == [
        m["detail"]["memory_id"] for m in hits
    ]


def test_the_meter_measures_the_next_request(h):
    budgets = []
    hooks = PanelHooks(h, on_change=lambda hk: budgets.append((hk.timings, dict(hk.budget_now))))
    turn = agent_turn(h, "Which voyages are delayed in the Pacific?", "gb-meter", hooks=[hooks])
    stages = [s for s, _ in hooks.timings]
    before = budgets[stages.index("before_model_step")][1]
    window = window_for(turn.model)
    first_request = turn.messages[:2]
    assert before == context_budget(first_request, turn.offered, window)
    assert before["total"] == sum(before[p] for p in PARTS) and before["window"] == window
    assert before["tool_schemas"] == schemas_tokens(turn.offered) and before["tool_outputs"] == 0
    after_call = budgets[stages.index("on_tool_call")][1]
    assert after_call["tool_outputs"] > 0 and after_call["total"] > before["total"]


def test_a_failed_model_call_is_shown_as_a_failed_turn(h):
    class Broken:
        model = "broken-model"
        mode = "offline"

        def complete(self, messages, tools=None, **kwargs):
            raise openai.APIConnectionError(request=httpx.Request("POST", "http://x/v1"))

    box = GlassBox(h)
    box.llm = StreamingLLM(Broken(), box._on_token)
    try:  # the loop raises the model's error, or (with an on_turn_error stage) ends the turn
        box.ask("Which voyages are delayed in the Pacific?")
    except openai.APIConnectionError:
        pass
    assert box.hooks.tree["status"] == "failed"
    assert _nodes(box.hooks.tree, "turn_error")[0]["detail"]["error"].startswith(
        "APIConnectionError"
    )
    assert "gb-turn_error" in box.trail.value and "failed" in box.chat.value
    assert not box._busy and not box.send.disabled, "the panel takes the next question"


def test_the_recorded_memory_hits_are_the_ones_in_the_context(h):
    """KnowledgeRecorder repeats build_context's search: the hits in the trail are the lines
    under "Relevant knowledge:" of the turn's context, in order."""
    from agent_harness.agent.knowledge_hits import hits_of
    from agent_harness.agent.llm.scenarios import knowledge_lines

    turn = agent_turn(h, "What does capacity_teu mean?", "gb-hits")
    lines = knowledge_lines(turn.messages[1]["content"])
    hits = hits_of(h.provenance.explain(turn.turn_id))
    assert len(hits) == len(lines) == 5
    for line, hit in zip(lines, hits):
        assert line.startswith(f"- [{hit['kind']}] {hit['content']}"), (line, hit)


# --- the panel ----------------------------------------------------------------------------------
def test_the_panel_says_whom_it_acts_for_and_its_trail_starts_with_the_identity(embedded_harness):
    """Issue 28, item 6: `workshop chat --identity` nowhere said whom it acted for, and its live
    trail started with the memory hits, not the identity event the stored trail starts with.
    (An identity harness on the embedded backend: the panel's code is backend-neutral.)"""
    import agent_harness

    h = embedded_harness
    ana = agent_harness.connect(
        backend="embedded",
        data_dir=h.settings.data_dir,
        identity={"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]},
    )
    try:
        box = GlassBox(ana)
        assert "acts for <b>ana (roles: analyst; voyages of ATLANTIC;" in box.status.value
        turn = box.ask("What is the declared cargo value per ocean region?")
        live, stored = box.hooks.tree["events"], ana.provenance.explain(turn.turn_id)["events"]
        assert live[0]["kind"] == stored[0]["kind"] == "identity", [e["kind"] for e in live]
        assert live[0]["detail"] == stored[0]["detail"]
        assert "gb-identity" in box.trail.value and "acting for ana (roles: analyst" in (
            box.trail.value
        )
    finally:
        ana.close()
    owner = GlassBox(h)
    assert "acts for <b>" in owner.status.value and "workshop owner" in owner.status.value
    assert owner.hooks.tree is None


def test_threads_switch_and_reopen_from_the_provenance_tables(h, container):
    box = GlassBox(h)
    first = box.thread_id
    box.ask("Which voyages are delayed in the Pacific?")
    box.ask(MANIFEST_QUESTION.format(container))
    second = box.new_thread()
    box.ask("Which containers are on customs hold?")
    listed = {t.thread_id: t for t in threads(h)}
    assert listed[first].turns == 2 and listed[second].turns == 1
    assert dict(box.threads.options)  # the thread list shows them
    again = GlassBox(h)  # a new panel, as after a restart: everything from the database
    rows = again.open_thread(first)
    assert [q for q, _ in again.exchanges] == [
        "Which voyages are delayed in the Pacific?",
        MANIFEST_QUESTION.format(container),
    ]
    assert [a for _, a in again.exchanges] == [r["answer"] for r in rows] and rows[0]["answer"]
    assert "stored trail" in again.trail.value and "gb-offload" in again.trail.value
    tree = again.show_turn(rows[0]["turn_id"])
    assert tree["question"] == "Which voyages are delayed in the Pacific?"
    assert "delayed_voyages" in again.trail.value


def test_html_from_the_database_is_escaped():
    tree = {
        "turn_id": "t",
        "question": "<b>q</b>",
        "status": "answered",
        "events": [
            {
                "kind": "memory_hit",
                "name": "note",
                "ok": None,
                "duration_ms": None,
                "detail": {"kind": "note", "score": 0.5, "content": "<script>alert(1)</script>"},
                "children": [],
            }
        ],
    }
    page = render_trail_html(tree)
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>q</b>" not in page


# --- the context budget -------------------------------------------------------------------------
def test_the_budget_splits_a_request_into_its_parts():
    manifest = "Skills you can load with load_skill:\n- a-skill: does a\n- b-skill: does b"
    messages = [
        {"role": "system", "content": "You are an agent."},
        {
            "role": "user",
            "content": f"{manifest}\n\nRelevant knowledge:\n- [note] x\n\nQuestion: q",
        },  # noqa: E501
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "function": {"name": "run_sql", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"rows": [[1]]}'},
    ]
    tools = [{"type": "function", "function": {"name": "run_sql", "parameters": {}}}]
    got = context_budget(messages, tools, 1000)
    assert got["system"] == count_tokens("You are an agent.")
    assert got["manifest"] == count_tokens(manifest)
    rest = "\n\nRelevant knowledge:\n- [note] x\n\nQuestion: q"
    assert got["history"] == count_tokens(rest) + count_tokens("\nrun_sql {}")
    assert got["tool_outputs"] == count_tokens('{"rows": [[1]]}')
    assert got["tool_schemas"] == schemas_tokens(tools)
    assert got["total"] == sum(got[p] for p in PARTS) and got["free"] == 1000 - got["total"]
    assert got["share"] == pytest.approx(got["total"] / 1000)
    agent_prompt = "You are X.\n\nYour skills (load_skill(name) ...):\n- s: d [unlocks: t]"
    start, end = manifest_span(agent_prompt)
    assert agent_prompt[start:end].startswith("Your skills") and end == len(agent_prompt)


def test_window_for_a_model(monkeypatch):
    monkeypatch.delenv("WORKSHOP_CONTEXT_WINDOW", raising=False)
    assert window_for("gpt-4o-mini") == 128_000 and window_for("gpt-4.1-nano") == 1_047_576
    assert window_for("some-local-model") == 128_000
    monkeypatch.setenv("WORKSHOP_CONTEXT_WINDOW", "32768")
    assert window_for("gpt-4o") == 32768


# --- streaming ----------------------------------------------------------------------------------
def _sse(chunks: list[dict]) -> bytes:
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def _chunk(delta: dict, finish=None, usage=None) -> dict:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        chunk["choices"], chunk["usage"] = [], usage
    return chunk


class _LiveLLM:
    """A live-mode model whose endpoint is an httpx mock answering with a stream."""

    mode = "live"
    model = "gpt-4o-mini"

    def __init__(self, body: bytes) -> None:
        self.sent = []

        def answer(request):
            self.sent.append(json.loads(request.content))
            return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

        self.client = openai.OpenAI(
            api_key="test",
            base_url="http://llm.test/v1",
            http_client=httpx.Client(transport=httpx.MockTransport(answer)),
        )


def test_a_live_answer_streams_token_by_token():
    body = _sse(
        [
            _chunk({"role": "assistant", "content": ""}),
            _chunk({"content": "Three "}),
            _chunk({"content": "voyages are "}),
            _chunk({"content": "delayed."}, finish="stop"),
            _chunk({}, usage={"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}),
        ]
    )
    pieces = []
    llm = StreamingLLM(_LiveLLM(body), pieces.append)
    completion = llm.complete([{"role": "user", "content": "delayed?"}])
    assert pieces == ["Three ", "voyages are ", "delayed."]
    assert completion.choices[0].message.content == "Three voyages are delayed."
    assert completion.usage.model_dump()["total_tokens"] == 17
    sent = llm.llm.sent[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def test_a_streamed_tool_call_is_assembled_for_the_loop():
    call = {"index": 0, "id": "call_1", "type": "function"}
    body = _sse(
        [
            _chunk({"role": "assistant", "tool_calls": [{**call, "function": {"name": "x"}}]}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"sql": '}}]}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"SELECT 1"}'}}]}),
            _chunk({}, finish="tool_calls"),
        ]
    )
    tools = [{"type": "function", "function": {"name": "x", "parameters": {}}}]
    completion = StreamingLLM(_LiveLLM(body), lambda _: None).complete([], tools=tools)
    (made,) = completion.choices[0].message.tool_calls
    assert (made.id, made.function.name, made.function.arguments) == (
        "call_1",
        "x",
        '{"sql": "SELECT 1"}',
    )


def test_the_offline_model_hands_its_answer_over_whole(h):
    pieces = []
    llm = StreamingLLM(h.llm, pieces.append)
    assert not llm.streams
    completion = llm.complete([{"role": "user", "content": "Tell me a joke"}])
    assert pieces == [completion.choices[0].message.content]


# --- workshop chat ------------------------------------------------------------------------------
def test_workshop_chat_serves_on_loopback_with_its_options(tmp_path):
    command, env = chat_command(
        tmp_path, 9123, backend="embedded", agent="supplychain-analyst", env={"PATH": "/bin"}
    )
    assert command[1:3] == ["-m", "voila"] and "--Voila.ip=127.0.0.1" in command
    assert "--port=9123" in command and (tmp_path / "glass_box.ipynb").exists()
    assert env["WORKSHOP_BACKEND"] == "embedded"
    assert env["WORKSHOP_CHAT_AGENT"] == "supplychain-analyst"
    assert env["JUPYTER_PATH"].split(":")[0] == str(tmp_path)
    template = (tmp_path / "voila" / "templates" / "glass-box" / "index.html.j2").read_text()
    assert "cdn.jsdelivr.net" in template and "replace(" in template  # the links dropped
    assert "WORKSHOP_CHAT_IDENTITY" not in env  # no identity: the workshop owner


def test_workshop_chat_acts_for_an_identity(tmp_path):
    from agent_harness.foundation.identity import Identity

    ana = Identity.parse("ana:analyst:ATLANTIC")
    _, env = chat_command(tmp_path, identity=ana, env={"WORKSHOP_CHAT_IDENTITY": "stale"})
    assert Identity.parse(env["WORKSHOP_CHAT_IDENTITY"]) == ana  # the page connects with it
    assert "WORKSHOP_CHAT_IDENTITY" in (tmp_path / "glass_box.ipynb").read_text()
    _, env = chat_command(tmp_path, env={"WORKSHOP_CHAT_IDENTITY": "stale"})
    assert "WORKSHOP_CHAT_IDENTITY" not in env


def test_workshop_chat_help():
    from click.testing import CliRunner

    from agent_harness.interfaces.cli import cli

    result = CliRunner().invoke(cli, ["chat", "--help"])
    assert result.exit_code == 0
    for option in (
        "--backend",
        "--agent",
        "--port",
        "--no-browser",
        "--identity",
        "127.0.0.1",
        "Voilà",
    ):
        assert option in result.output


def test_the_question_reaches_the_kernel_whole_before_send_runs(h):
    """The question box sends its value once, when it loses focus (clicking Send blurs it),
    not at every keystroke. With updates at every keystroke the browser holds back a widget's
    later updates until the kernel has answered the first one, but not the button's click:
    on a busy machine Send ran with the question's first letter ("W"), in the browser test."""
    from agent_harness.glass_box import GlassBox

    box = GlassBox(h)
    assert box.question.continuous_update is False
