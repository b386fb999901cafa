#!/usr/bin/env python3
"""Soak of the server with heavy batches (not a test; docs/results.md,
"Soak with heavy batches"): does the server give its memory back?

Starts `wattcast serve` on a fitted parameter set (200 bootstrap draws),
measures its idle resident memory (VmRSS) after a few light requests, then
runs ROUNDS rounds of CLIENTS concurrent POST /v1/predict/batch of ITEMS
items each (with the capacity fields, the heaviest answers). A client that
gets 503 server_busy waits its Retry-After and sends again, so every batch is
eventually answered. After each round (and a second of rest) the RSS is read
again. Verdict: the RSS after the last round is within 2x the idle RSS.

usage: python3 bench/soak_heavy.py [--build build] [--rounds 6] [--clients 30]
                                   [--items 4000] [--threads 64] [--plain]
ITEMS defaults to 4000, within the batch work budget for a 200-draw set
(docs/http-api.md, "POST /v1/predict/batch"): the 10 000 of the rounds in
docs/results.md were measured before the budget charged capacity items.
--plain sends the items without the capacity fields (power only: the
answers are smaller and cheaper, so more batches compute per second).
Prints one line per round and the verdict; exit 1 when the verdict fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def post(url, body):
    """(status, retry_after) of one POST; the body is read and dropped."""
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            r.read()
            return r.status, None
    except urllib.error.HTTPError as e:
        e.read()
        return e.code, e.headers.get("Retry-After")


def client(url, body, stats, lock):
    while True:
        try:
            status, retry = post(url, body)
        except (urllib.error.URLError, ConnectionError) as e:
            # The server may answer before it has the whole body and close
            # (503 with the body readers taken, 408 past the request timeout
            # on a loaded machine; docs/http-api.md, "Limits"): the client
            # then sees its send cut. Counted, sent again.
            status, retry = f"cut ({type(getattr(e, 'reason', e)).__name__})", "1"
        with lock:
            stats[status] = stats.get(status, 0) + 1
        if status == 503 and retry or str(status).startswith("cut"):
            time.sleep(float(retry))
            continue
        return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--clients", type=int, default=30)
    ap.add_argument("--items", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--plain", action="store_true", help="items without the capacity fields")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    wattcast = os.path.join(root, a.build, "wattcast")
    tmp = tempfile.mkdtemp(prefix="wattcast-soak-heavy.")
    params = os.path.join(tmp, "p.json")
    subprocess.run([wattcast, "fit", "inference", os.path.join(root, "data/default/paper-design-seed42.csv"),
                    "-o", params, "--bootstrap", "200", "--seed", "1", "--threads", "1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = open(os.path.join(tmp, "serve.out"), "w+")
    srv = subprocess.Popen([wattcast, "serve", "--params", params, "--listen", "127.0.0.1:0",
                            "--threads", str(a.threads)], stdout=out, stderr=subprocess.DEVNULL)
    try:
        port = None
        for _ in range(200):
            out.seek(0)
            m = re.search(r"127\.0\.0\.1:(\d+)", out.read())
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.05)
        if not port:
            sys.exit("soak_heavy: the server did not start")
        base = f"http://127.0.0.1:{port}"
        light = json.dumps({"platform": "H100", "tp": 1, "model": "Qwen3-8B", "concurrency": 32}).encode()
        for _ in range(20):
            post(base + "/v1/predict/inference", light)
        time.sleep(1)
        idle = rss_mb(srv.pid)
        health = json.load(urllib.request.urlopen(base + "/v1/health"))
        print(f"idle RSS {idle:.1f} MB; max_heavy {health.get('max_heavy')}; "
              f"{a.rounds} rounds of {a.clients} concurrent batches of {a.items} items "
              f"({'without' if a.plain else 'with'} capacity fields)")
        item = {"platform": "H100", "tp": 1, "model": "Qwen3-8B", "concurrency": 32}
        if not a.plain:
            item.update(input_tokens=512, output_tokens=256)
        body = json.dumps([item] * a.items).encode()
        last = idle
        for r in range(1, a.rounds + 1):
            stats, lock = {}, threading.Lock()
            t0 = time.time()
            ts = [threading.Thread(target=client, args=(base + "/v1/predict/batch", body, stats, lock))
                  for _ in range(a.clients)]
            for t in ts:
                t.start()
            peak = idle
            while any(t.is_alive() for t in ts):
                peak = max(peak, rss_mb(srv.pid))
                time.sleep(0.05)
            elapsed = time.time() - t0
            time.sleep(1)
            last = rss_mb(srv.pid)
            print(f"round {r}: {elapsed:.1f} s, answers {dict(sorted(stats.items(), key=str))}, "
                  f"peak RSS {peak:.1f} MB, RSS after {last:.1f} MB ({last / idle:.2f}x idle)")
        ok = last <= 2 * idle
        print(f"verdict: RSS after the soak {last:.1f} MB = {last / idle:.2f}x idle "
              f"({'within' if ok else 'above'} 2x)")
        return 0 if ok else 1
    finally:
        srv.terminate()
        srv.wait()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
