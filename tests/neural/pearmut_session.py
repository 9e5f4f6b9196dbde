"""Run inside Pearmut's own environment (.venv-pearmut), with PEARMUT_ROOT set to a temporary folder: one annotator
works through a campaign mtlens exported, through Pearmut's own web API (its FastAPI app, driven in process by
Starlette's test client: no server), then Pearmut computes its own model scores. Prints JSON: the scores given,
the pre-filled spans Pearmut served, and Pearmut's ``compute_model_scores``.

    PEARMUT_ROOT=DIR python pearmut_session.py CAMPAIGN_ID

The annotator's score of (item, system) is a fixed function of the two (so the test knows it) and the spans it
submits are the pre-filled ones Pearmut served, kept as they are (an ESA-AI annotator who agrees)."""

import json
import sys
import zlib

from fastapi.testclient import TestClient
from pearmut.app import app
from pearmut.results_export import compute_model_scores
from pearmut.utils import load_progress_data


def score_of(item_id: str, system: str) -> int:
    return zlib.crc32(f"{item_id}|{system}".encode()) % 101


def main() -> None:
    campaign = sys.argv[1]
    client = TestClient(app)
    user = next(iter(load_progress_data()[campaign]))
    given, served, t = {}, {}, 1_000.0
    for _ in range(100_000):
        r = client.post("/get-next-item", json={"campaign_id": campaign, "user_id": user})
        assert r.status_code == 200, r.text
        body = r.json()
        if not body or body.get("status") not in ("ok",) or "payload" not in body:
            break
        items, item_i = body["payload"], body["info"]["item_i"]
        annotation = []
        for item in items:
            ann = {}
            for system in item["tgt"]:
                spans = (item.get("error_spans") or {}).get(system, [])
                served[f"{item['item_id']}|{system}"] = spans
                score = score_of(item["item_id"], system)
                given[f"{item['item_id']}|{system}"] = score
                ann[system] = {"score": score, "error_spans": spans}
            annotation.append(ann)
        t += 10
        payload = {"item": items, "annotation": annotation, "actions": [{"time": t - 5}, {"time": t}]}
        r = client.post(
            "/log-response", json={"campaign_id": campaign, "user_id": user, "item_i": item_i, "payload": payload}
        )
        assert r.status_code == 200, r.text
    print(json.dumps({"user": user, "given": given, "served": served, "pearmut": compute_model_scores(campaign)}))


if __name__ == "__main__":
    main()
