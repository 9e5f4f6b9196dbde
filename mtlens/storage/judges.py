"""The registry of LLM judges and their cached answers (issue 48). The operator registers a judge (an
OpenAI-compatible endpoint, a model, a GEMBA protocol); its API key is never stored, only the name of the
environment variable read when a request is made."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence

from ..core.errors import InputError
from .database import Database, Missing, dict_rows, in_chunks

_COLUMNS = (
    "name, url, model, protocol, key_env, samples, concurrency, price_in, price_out, added, score_references, "
    "temperature, aggregate"
)


class Judges(Database):
    """The judges registry and the answers cache."""

    def put_judge(self, row: Mapping) -> None:
        """Register (or replace) a judge: ``name, url, model, protocol, key_env, samples, concurrency, price_in,
        price_out, score_references, temperature, aggregate``."""
        values = [row[k] for k in ("name", "url", "model", "protocol", "key_env", "samples", "concurrency")]
        values += [row.get("price_in"), row.get("price_out")]
        values.append(dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
        values.append(1 if row.get("score_references") else 0)
        values += [row.get("temperature"), row.get("aggregate") or "mean"]
        with self._db(write=True) as con:
            con.execute(
                f"INSERT INTO judges ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE "
                "SET url = excluded.url, model = excluded.model, protocol = excluded.protocol, "
                "key_env = excluded.key_env, samples = excluded.samples, concurrency = excluded.concurrency, "
                "price_in = excluded.price_in, price_out = excluded.price_out, added = excluded.added, "
                "score_references = excluded.score_references, temperature = excluded.temperature, "
                "aggregate = excluded.aggregate",
                values,
            )

    def judges(self) -> list[dict]:
        """The registered judges, by name."""
        try:
            with self._db() as con:
                return dict_rows(con.execute(f"SELECT {_COLUMNS} FROM judges ORDER BY name"))
        except Missing:
            return []

    def remove_judge(self, name: str) -> None:
        """Forget a judge (its cached answers stay: they belong to the endpoint, model and prompt)."""
        with self._db(write=True) as con:
            if con.execute("DELETE FROM judges WHERE name = ?", (name,)).rowcount == 0:
                raise InputError(f"no judge is registered as '{name}'")

    def judge_answers(self, keys: Sequence[str]) -> dict[str, dict]:
        """Cached answers: key -> ``{answer, finish, prompt_tokens, completion_tokens, temperature}``."""
        out: dict[str, dict] = {}
        try:
            with self._db() as con:
                for chunk, marks in in_chunks(keys):
                    cur = con.execute(
                        "SELECT key, answer, finish, prompt_tokens, completion_tokens, temperature FROM judge_answers "
                        f"WHERE key IN ({marks})",
                        chunk,
                    )
                    for row in dict_rows(cur):
                        out[row.pop("key")] = row
        except Missing:
            pass
        return out

    def put_judge_answers(self, rows: Sequence[tuple[str, str, str, int, int, float]]) -> None:
        """Save answers: ``(key, answer, finish, prompt_tokens, completion_tokens, temperature)``."""
        if not rows:
            return
        self._check_size(sum(len(r[1]) for r in rows), None)
        now = time.time()
        with self._db(write=True) as con:
            con.executemany(
                "INSERT INTO judge_answers (key, answer, finish, prompt_tokens, completion_tokens, temperature, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                [(*r, now) for r in rows],
            )
