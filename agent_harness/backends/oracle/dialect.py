"""How Oracle spells what SQLite spells differently (no connection, no state).

Documentation (SQL Language Reference 23/26 unless said): SELECT, row_limiting_clause
(``FETCH FIRST n ROWS ONLY``); MERGE; JSON Developer's Guide 23 (the ``JSON`` type constructor
``JSON(:text)``, ``JSON_SERIALIZE ... RETURNING CLOB``, ``JSON_VALUE ... RETURNING ... NULL ON
ERROR``); SYS_EXTRACT_UTC and TO_CHAR (datetime format models); python-oracledb's VECTOR binds
(``array.array('f')``, "Using VECTOR Data").
"""

from __future__ import annotations

import array
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agent_harness.backends.connection import Dialect
from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.text_query import contains_query
from agent_harness.foundation.embeddings import DIMENSIONS

__all__ = ["OracleDialect", "iso_text"]

_TS = '\'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"\''


def iso_text(column: str) -> str:
    """SQL for a TIMESTAMP WITH TIME ZONE as the ISO text the embedded backend stores."""
    return f"TO_CHAR(SYS_EXTRACT_UTC({column}), {_TS})"


class OracleDialect(Dialect):
    """Oracle's spelling: ``FETCH FIRST``, ``MERGE``, the JSON type, Oracle Text queries,
    VECTOR binds as float32 arrays, times as naive UTC TIMESTAMPs."""

    name = "oracle"
    now = "SYSTIMESTAMP"

    def limit(self, bind: str) -> str:
        return f"FETCH FIRST :{bind} ROWS ONLY"

    def upsert(
        self,
        table: str,
        keys: Sequence[str],
        values: Mapping[str, str],
        update: Sequence[str] | None = None,
        append: Sequence[str] = (),
        touch: str | None = None,
    ) -> str:
        # Each bind appears once, in the USING row; both branches read it from there.
        if update is None:
            update = [c for c in values if c not in keys and c not in append]
        sets = [f"stored.{c} = src.{c}" for c in update]
        sets += [f"stored.{c} = stored.{c} || src.{c}" for c in append]
        if sets and touch:
            sets.append(f"stored.{touch} = SYSTIMESTAMP")
        source = ", ".join(f"{expr} AS {column}" for column, expr in values.items())
        on = " AND ".join(f"stored.{k} = src.{k}" for k in keys)
        matched = f" WHEN MATCHED THEN UPDATE SET {', '.join(sets)}" if sets else ""
        return (
            f"MERGE INTO {table} stored USING (SELECT {source} FROM dual) src ON ({on})"
            f"{matched} WHEN NOT MATCHED THEN INSERT ({', '.join(values)})"
            f" VALUES ({', '.join('src.' + c for c in values)})"
        )

    def json_filter(self, column: str, key: str, value: Any) -> tuple[str, Any]:
        # Numbers compare as numbers; text, booleans ('true'/'false') and null as text.
        path = f"'$.\"{key}\"'"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"JSON_VALUE({column}, {path} RETURNING NUMBER NULL ON ERROR)", value
        if isinstance(value, bool):
            value = "true" if value else "false"
        return f"JSON_VALUE({column}, {path} RETURNING VARCHAR2(4000) NULL ON ERROR)", value

    def json_in(self, bind: str) -> str:
        return f"JSON(:{bind})"

    def json_out(self, column: str) -> str:
        return f"JSON_SERIALIZE({column} RETURNING CLOB)"

    def time_text(self, column: str) -> str:
        return iso_text(column)

    def time(self, value: dt.datetime | None) -> dt.datetime | None:
        """An aware datetime as the naive UTC value the TIMESTAMP columns hold."""
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value

    def text_query(self, text: str) -> str:
        """Each word becomes ``{word}`` (``}`` doubled), joined by ACCUM; see
        :func:`~agent_harness.backends.oracle.text_query.contains_query`."""
        return contains_query(text)

    def vector_bind(self, vector: Any) -> array.array:
        values = np.asarray(vector, dtype=np.float32)
        if values.shape != (DIMENSIONS,):
            raise BackendError(
                f"expected a vector of {DIMENSIONS} floats, got shape {values.shape}"
            )
        bound = array.array("f")
        bound.frombytes(values.tobytes())
        return bound
