#!/usr/bin/env python3
"""The hardening regression checks against any wattcast binary.

usage: python3 bench/regress_items.py BIN [ITEM...]

Drives BIN (a build of any commit) with the inputs of each item's regression
test (docs/results.md, "Regression tests against the old code") and prints
one line per check: the item (the row of that section's table), what the test asserts, "ok" or "FAILED" and
what BIN did. Run it on a build of the commit before the fixes to watch the
tests' assertions fail there, and on today's build to watch them hold.
Items 11 (memory) and 13 (fuzz seeds) have their own benches
(bench/soak_heavy.py, bench/fuzz.sh); items here are 1-10, 12 and 14-18.
Exit status: the number of failed checks (0: every assertion holds).

Standard library only; the server is started on a free loopback port and
stopped at the end. The work happens in a temporary folder.
"""
import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

BIN = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "build/wattcast"
ONLY = {int(a) for a in sys.argv[2:]}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = tempfile.mkdtemp(prefix="wattcast-regress.")
failed = 0


def report(item, what, ok, detail):
    global failed
    if not ok:
        failed += 1
    detail = " ".join(str(detail).split())[:160]
    print(f"{item:>3}  {'ok    ' if ok else 'FAILED'}  {what}: {detail}", flush=True)


def run(*args, stdin=None):
    p = subprocess.run([BIN, *args], cwd=WORK, capture_output=True, text=True,
                       errors="replace", input=stdin, timeout=600)
    return p.returncode, p.stdout, p.stderr


def path(name):
    return os.path.join(WORK, name)


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path(name), mode) as f:
        f.write(data)
    return path(name)


# ------------------------------------------------------------ telemetry

def power_log(name, header, value_text, odd=0, odd_text=b""):
    """200 rows of one GPU at 100 ms, as tests/test_telemetry_units.c."""
    rows = [header.encode() + b"\n"]
    for i in range(1, 201):
        ts = f"2026/07/18 10:00:{(i // 10) % 60:02d}.{(i % 10) * 100:03d}, 0, ".encode()
        rows.append(ts + (odd_text if i == odd else value_text.encode()) + b"\n")
    return write(name, b"".join(rows))


def metrics(p):
    rc, out, err = run("metrics", p, "--json")
    try:
        j = json.loads(out)
        return rc, j, err
    except ValueError:
        return rc, None, err


def group_mean(j):
    g = j.get("group", {}) if j else {}
    for k in ("mean_w", "mean_power_w", "mean"):
        if k in g:
            return g[k]
    return None


HDR = "timestamp, index, power.draw [W]"


def item1():
    for name, hdr, val in (("mw.csv", HDR, "250000 mW"), ("kw.csv", HDR, "0.25 kW"),
                           ("mwhdr.csv", "timestamp, index, power.draw [mW]", "250000")):
        rc, j, err = metrics(power_log(name, hdr, val))
        m = group_mean(j)
        report(1, f"'{val}' under '{hdr[-4:]}' is 250 W", rc == 0 and m is not None and abs(m - 250) < 1e-6,
               f"rc {rc}, mean {m} {err.strip()[:80]}")
    rc, j, err = metrics(power_log("joule.csv", HDR, "250 J"))
    report(1, "'250 J' refused with file:line:column", rc != 0 and "joule.csv:2:" in err,
           f"rc {rc}, mean {group_mean(j)}, {err.strip()[:100]}")


def one_bad_row(item, name, odd_text, label):
    """200 rows at 250 W, row 50 holding `odd_text`: one bad line, mean 250 W."""
    rc, j, err = metrics(power_log(name, HDR, "250 W", 50, odd_text))
    m = group_mean(j)
    bad = j.get("bad_lines") if j else None
    report(item, f"{label}: a bad line, mean 250 W",
           rc == 0 and m is not None and abs(m - 250) < 1e-6 and bad == 1, f"rc {rc}, mean {m}, bad_lines {bad}")


def item2():
    one_bad_row(2, "huge.csv", b"1e30 W", "one 1e30 W sample")


def item4():
    one_bad_row(4, "nul.csv", b"25\0.00 W", "'25\\0.00 W'")


T0 = 1700000000.0


def run_dir(name, engine_text, bom=b""):
    """One GPU over 20 s, 100 W then 300 W; engine counters every 0.5 s
    (tests/test_ingest_running.c)."""
    d = path(name)
    os.makedirs(d, exist_ok=True)
    rows = ["index,timestamp,power.draw"]
    for i in range(201):
        ts = time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(int(T0) + i // 10))
        rows.append(f"0,{ts}.{(i % 10) * 100:03d},{100.0 if i < 50 else 300.0:.2f}")
    with open(os.path.join(d, "power.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(d, "engine.csv"), "wb") as f:
        f.write(bom + engine_text.encode())
    return d


def engine_csv(busy, odd=None):
    lines = ["timestamp,num_requests_running"]
    for k in range(41):
        v = "0" if k < 10 else (odd if odd is not None and k == 20 else busy)
        lines.append(f"{T0 + 0.5 * k:.3f},{v}")
    return "\n".join(lines) + "\n"


def ingest(d, out):
    return run("ingest", d, "-o", out, "--platform", "H100", "--model", "Llama-3.1-8B", "--utc-offset", "0")


def item3():
    for odd in ("-5", "1e300"):
        d = run_dir(f"running{odd}", engine_csv("8", odd))
        out = path(f"running{odd}.csv")
        rc, _, err = ingest(d, out)
        report(3, f"num_requests_running {odd}: refused, nothing written",
               rc != 0 and not os.path.exists(out) and "num_requests_running" in err,
               f"rc {rc}, table written: {os.path.exists(out)}"
               + (f" ({row_value(out, 'running')})" if os.path.exists(out) else "") + f" {err.strip()[:80]}")


def row_value(table, col):
    with open(table) as f:
        lines = [line for line in f if not line.startswith("#")]
    head = lines[0].rstrip("\n").split(",")
    return f"{col}={lines[1].rstrip().split(',')[head.index(col)]}" if col in head and len(lines) > 1 else ""


def item14():
    d = run_dir("bom", engine_csv("8"), bom=b"\xef\xbb\xbf")
    out = path("bom.csv")
    rc, _, err = ingest(d, out)
    report(14, "engine.csv with a UTF-8 BOM is ingested", rc == 0 and os.path.exists(out),
           f"rc {rc} {err.strip()[:120]}")


# ------------------------------------------------------------ fits

COLS = "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"


def table(name, rows):
    return write(name, COLS + "".join(f"{r[0]},{r[1]},1,m{r[2]:g},{r[2]:g},{r[3]:g},{r[4]!r},{r[5]:g}\n"
                                      for r in rows))


def intervals(doc, where="", out=None):
    """Every {value, ci95} in a parameter file, with its JSON path."""
    out = [] if out is None else out
    if isinstance(doc, dict):
        if "value" in doc and isinstance(doc.get("ci95"), list):
            out.append((where, doc["value"], doc["ci95"], doc.get("source")))
        for k, v in doc.items():
            if k != "draws":
                intervals(v, f"{where}/{k}", out)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            intervals(v, f"{where}/{i}", out)
    return out


def bad_intervals(doc):
    return [f"{w} {v:.4g} [{ci[0]:.4g}, {ci[1]:.4g}]" for w, v, ci, _ in intervals(doc)
            if None not in ci and not (ci[0] <= v <= ci[1] and ci[1] > ci[0])]


def fit(runs, out, *extra):
    rc, stdout, err = run("fit", "inference", runs, "-o", out, *extra)
    doc = None
    if rc == 0:
        with open(out) as f:
            doc = json.load(f)
    return rc, doc, stdout + err


def level(doc, name):
    for lv in doc.get("levels", []):
        if lv.get("name") == name:
            return lv
    return {}


def item5():
    rows = [(f"same{i}", "A100", 8.19, 32, 361.1, 72.9) for i in range(50)]
    rc, doc, text = fit(table("same.csv", rows), path("same.json"), "--bootstrap", "200", "--seed", "3")
    if doc is None:
        report(5, "50 identical rows: gamma1 not 'fitted', no zero-width interval", rc != 0,
               f"rc {rc} {text.strip()[:120]}")
    else:
        g1 = doc.get("shared", {}).get("gamma1", {})
        fitted = [w for w, v, ci, s in intervals(doc) if s == "fitted"]
        bad = bad_intervals(doc)
        report(5, "50 identical rows: gamma1 not 'fitted', no zero-width interval",
               g1.get("source") != "fitted" and not bad,
               f"gamma1 {g1.get('value')} source {g1.get('source')}; {len(fitted)} fitted; {'; '.join(bad[:2])}")
    rc, _, err = run("simulate", "inference", "--seed", "2024", "-o", path("sim.csv"))
    rc, doc, text = fit(path("sim.csv"), path("sim.json"), "--bootstrap", "200", "--seed", "3")
    th = level(doc or {}, "H100-locked").get("theta", {})
    v, ci = th.get("value"), th.get("ci95") or [None, None]
    ok = v is not None and -12 <= v <= 12 and (ci[0] is None or (ci[0] <= v <= ci[1] and ci[1] <= 12))
    report(5, "theta[H100-locked] within [-12, 12] and inside its interval", ok and not bad_intervals(doc or {}),
           f"rc {rc}, theta {v}, ci95 {ci}; {'; '.join(bad_intervals(doc or {})[:2])}")


def item6():
    rnd = random.Random(7)
    rows = []
    for i, size in enumerate((0.6, 1.7, 4, 8.19, 14.8, 32.8)):
        for j in range(5):
            n = float(1 << (2 * j))
            z = 1.99 + 0.598 * math.log(size / 8.0) + 0.749 * math.log(n / 32.0)
            dyn = 329.0 / (1.0 + math.exp(-z)) * math.exp(0.03 * rnd.gauss(0, 1))
            rows.append((f"a{i}_{j}", "A100", size, n, 72.9 + dyn, 72.9))
    rows.append(("absurd", "A100", 8.19, 16, 1e300, 72.9))
    rc, doc, text = fit(table("absurd.csv", rows), path("absurd.json"), "--bootstrap", "200", "--seed", "3")
    s = level(doc or {}, "A100").get("s_w", {}).get("value")
    named = any("not physical" in line and line.rstrip().endswith("absurd") for line in text.splitlines())
    shown = " ".join(line.strip() for line in text.splitlines() if line.strip().startswith("S[A100]"))
    report(6, "one 1e300 W row: named as not physical, S[A100] <= 1.1 x 400 - 72.9 W",
           s is not None and s <= 367.1 + 1e-6 and named,
           f"rc {rc}, {shown or 'S[A100] ' + str(s)}, run named: {named}")


def item7():
    write("hot.csv", "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
          "hot-1000w,H100,1,Qwen3-8B,8.19,32,1000\n")
    rc, out, err = run("calibrate", "--profile", "paper", path("hot.csv"), "-o", path("hot.json"),
                       "--seed", "1", "--threads", "1")
    text = out + err
    report(7, "calibrating on 1000 W above the H100 ceiling warns, naming the run",
           "ceiling" in text and "hot-1000w" in text,
           f"rc {rc}, " + (" ".join(line for line in text.splitlines() if "ceiling" in line)[:140]
                           or "no ceiling warning; " + " ".join(line for line in text.splitlines() if "Qwen3-8B" in line)))


def item8():
    rc, _, err = run("fit", "inference", os.path.join(ROOT, "data/default/paper-design-seed42.csv"),
                     "-o", path("p.json"))
    with open(path("p.json")) as f:
        doc = json.load(f)
    doc["shared"]["delta"]["value"] = 1e308
    write("delta.json", json.dumps(doc))
    rc, out, err = run("predict", "inference", "--params", path("delta.json"), "--platform", "H100",
                       "--model", "Qwen3-8B", "--concurrency", "32", "--json")
    report(8, "a parameter file with delta = 1e308 is refused naming delta", rc != 0 and "delta" in err,
           f"rc {rc}, {(err or out).strip()[:120]}")


# ------------------------------------------------------------ server

class Server:
    def __init__(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.p = subprocess.Popen([BIN, "serve", "--profile", "paper", "--listen", f"127.0.0.1:{self.port}"],
                                  cwd=WORK, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(1200):  # a loaded machine can take a while
            if self.p.poll() is not None:
                raise RuntimeError(f"the server exited with {self.p.returncode}")
            try:
                self.get("/v1/health")
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not answer /v1/health within 120 s")

    def get(self, p):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{p}", timeout=30) as r:
            return r.status, r.read()

    def post(self, p, body):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{p}", data=body.encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.headers, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, e.headers, json.loads(raw)
            except ValueError:
                return e.code, e.headers, raw.decode(errors="replace")

    def raw(self, text):
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as c:
            c.sendall(text.encode())
            c.shutdown(socket.SHUT_WR)
            data = b""
            while True:
                b = c.recv(65536)
                if not b:
                    break
                data += b
        return data.decode(errors="replace")

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=30)


def err_of(j):
    return j.get("error", {}) if isinstance(j, dict) else {}


CFG = '"platform":"H100","tp":1,"active_params_b":8'
FT = '"method":"full","model":"Qwen3-8B","seq_len":1024,"micro_batch":8'


def item9(srv):
    st, _, j = srv.post("/v1/predict/finetune", "{" + FT + ',"tokens_per_step":5e-324}')
    report(9, "tokens_per_step 5e-324: 422 on /tokens_per_step", st == 422 and err_of(j).get("field") == "/tokens_per_step",
           f"{st} {json.dumps(j)[:120] if st != 200 else 'energy_per_token_j ' + str('energy_per_token_j' in j)}")


def item10(srv):
    cases = [('"running_series":[1e308,1e308],"dt_s":1', CFG, "/v1/predict/inference", "/running_series"),
             ('"running_series":[1,2],"dt_s":1e308', CFG, "/v1/predict/inference", "/dt_s"),
             ('"tokens_per_step":1e308', FT, "/v1/predict/finetune", "/tokens_per_step"),
             ('"concurrency":4,"sm_clock_mhz":100000', CFG, "/v1/predict/inference", "/sm_clock_mhz")]
    for extra, base, route, field in cases:
        st, _, j = srv.post(route, "{" + base + "," + extra + "}")
        got = err_of(j).get("field")
        report(10, f"{extra}: 422 on {field}", st == 422 and got == field,
               f"{st} field {got!r} {'node_power_w ' + str(j.get('node_power_w')) if st == 200 else ''}")


def item12(srv):
    body = json.dumps({"bootstrap": 1000, "runs": [
        {"platform": "H100", "tp": 1, "model": "Qwen3-8B", "running": n, "mean_power_w": 300 + 10 * n,
         "run_id": f"r{n}"} for n in (1, 4, 16, 32)]})
    results = []

    def one():
        t = time.time()
        st, hdr, _ = srv.post("/v1/calibrate", body)
        results.append((st, hdr.get("Retry-After") if hdr else None, time.time() - t))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n503 = sum(1 for s, ra, _ in results if s == 503 and ra)
    report(12, "8 concurrent calibrations: those beyond the cap get 503 + Retry-After", n503 > 0,
           f"statuses {sorted(s for s, _, _ in results)}, slowest {max(d for _, _, d in results):.1f} s")


def item15(srv):
    a = srv.raw("GET /v1/health%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    report(15, "GET /v1/health%00 is 404", a.startswith("HTTP/1.1 404 "), a.split("\r\n", 1)[0])


def item16(srv):
    for body in ("42", "null"):
        st, _, j = srv.post("/v1/predict/inference", body)
        report(16, f"body {body}: 422 wrong_type", st == 422 and err_of(j).get("code") == "wrong_type",
               f"{st} {err_of(j).get('code')}")


def item17(srv):
    st, _, j = srv.post("/v1/calibrate", '{"runs":[{"platform":"H100","tp":0,"model":"Qwen3-8B",'
                        '"running":4,"mean_power_w":500}]}')
    msg = err_of(j).get("message", "")
    report(17, "calibrate tp 0: 'must be >= 1'", st == 422 and "must be >= 1" in msg, f"{st} {msg}")


def item18(srv):
    # A complete chunked request that also states a Content-Length: the old
    # server answered it (200), RFC 9112 says to refuse it.
    body = '{' + CFG + ',"concurrency":4}'
    chunked = f"{len(body):x}\r\n{body}\r\n0\r\n\r\n"
    a = srv.raw("POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Transfer-Encoding: chunked\r\nContent-Length: {len(chunked)}\r\nConnection: close\r\n\r\n"
                + chunked)
    report(18, "Transfer-Encoding with Content-Length: 400 naming both",
           a.startswith("HTTP/1.1 400 ") and "both Transfer-Encoding and Content-Length" in a,
           a.split("\r\n", 1)[0] + " " + a.rsplit("\r\n", 1)[-1][:80])


def main():
    print(f"binary: {BIN}")
    for n, f in ((1, item1), (2, item2), (3, item3), (4, item4), (5, item5), (6, item6), (7, item7),
                 (8, item8), (14, item14)):
        if not ONLY or n in ONLY:
            try:
                f()
            except Exception as e:  # an item that cannot even run is a failure of it
                report(n, "ran", False, repr(e))
    served = [(9, item9), (10, item10), (12, item12), (15, item15), (16, item16), (17, item17), (18, item18)]
    if not ONLY or ONLY & {n for n, _ in served}:
        srv = Server()
        try:
            for n, f in served:
                if not ONLY or n in ONLY:
                    try:
                        f(srv)
                    except Exception as e:
                        report(n, "ran", False, repr(e))
        finally:
            srv.stop()
    print(f"{failed} check(s) failed")
    shutil.rmtree(WORK, ignore_errors=True)
    return min(failed, 100)


if __name__ == "__main__":
    sys.exit(main())
