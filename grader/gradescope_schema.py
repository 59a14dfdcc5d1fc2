"""Gradescope's autograder ``results.json`` as a JSON Schema (draft 2020-12).

Written from Gradescope's autograder specification (gradescope/autograder_samples
docs/specs.md; the project's summary is in shared/facts/lms-export.md, section 2): top-level
score, execution_time, output and its formats, visibility, stdout_visibility, extra_data,
tests and leaderboard; per test score, max_score, status, name, number, output, tags,
visibility, extra_data. Unknown fields are refused, so a typo in our output fails here rather
than as "The autograder failed to execute correctly" on Gradescope. A Python module rather
than a JSON file so it ships in any install.
"""

__all__ = ["GRADESCOPE_SCHEMA"]

GRADESCOPE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "grader/gradescope_results.schema.json",
    "title": "Gradescope autograder results.json",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": {
            "type": "number",
            "description": "Overrides the sum of the tests' scores; required "
            "when the tests carry no scores.",
        },
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "output_format": {"$ref": "#/$defs/format"},
        "test_output_format": {"$ref": "#/$defs/format"},
        "test_name_format": {"$ref": "#/$defs/format"},
        "visibility": {"$ref": "#/$defs/visibility"},
        "stdout_visibility": {"$ref": "#/$defs/visibility"},
        "extra_data": {},
        "tests": {"type": "array", "items": {"$ref": "#/$defs/test"}},
        "leaderboard": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "value"],
                "properties": {
                    "name": {"type": "string"},
                    "value": {"type": ["number", "string"]},
                    "order": {"enum": ["asc", "desc"]},
                },
            },
        },
    },
    "anyOf": [
        {"required": ["score"]},
        {"required": ["tests"], "properties": {"tests": {"items": {"required": ["score"]}}}},
    ],
    "$defs": {
        "format": {"enum": ["text", "html", "simple_format", "md", "ansi"]},
        "visibility": {"enum": ["hidden", "after_due_date", "after_published", "visible"]},
        "test": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "score": {"type": "number"},
                "max_score": {"type": "number", "minimum": 0},
                "status": {"enum": ["passed", "failed"]},
                "name": {"type": "string"},
                "name_format": {"$ref": "#/$defs/format"},
                "number": {"type": "string"},
                "output": {"type": "string"},
                "output_format": {"$ref": "#/$defs/format"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "visibility": {"$ref": "#/$defs/visibility"},
                "extra_data": {},
            },
        },
    },
}
