#!/usr/bin/env python3
"""Slow and stalled clients against `wattcast serve` (not a test; docs/http-api.md,
"Limits"). Starts the server (default options: 64 workers, 10 s request
timeout), then for each kind of stalled client opens N connections and, while
they stall, times GET /v1/health on fresh connections (10 probes, 0.3 s apart);
for stalled bodies it also times when the first stalled request is answered and
with what (the documented cut is 408 at 10 s after the headers; headers are
waited for 1 s).

  body     headers, Content-Length: 100, 12 body bytes, then nothing
  headers  half a request line and one header, then nothing
  idle     connect and send nothing

usage: python3 bench/slow_clients.py [BUILD_DIR] [N]     (defaults: build, 70)
"""
import select
import socket
import subprocess
import sys
import threading
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 70

server = subprocess.Popen([build + "/wattcast", "serve", "--listen", "127.0.0.1:0"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
line = server.stdout.readline()
port = int(line.split("127.0.0.1:")[1].split()[0])

STALL = {
    "body": b"POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{\"platform\":",
    "headers": b"POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\n",
    "idle": b"",
}


def health():
    t = time.time()
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(60)
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    status = s.recv(64).split(b"\r\n")[0].decode()
    s.close()
    return time.time() - t, status


try:
    print(f"wattcast serve on port {port}; {n} stalled connections of each kind")
    for kind, data in STALL.items():
        t0 = time.time()
        socks = []
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port))
            if data:
                s.sendall(data)
            socks.append(s)
        # When each stalled request is answered, and with what (watched from
        # the start, while health is probed).
        answers = {}

        def watch():
            left = set(socks)
            while left:
                ready, _, _ = select.select(list(left), [], [], 60)
                if not ready:
                    break
                now = time.time() - t0
                for s in ready:
                    try:
                        first = s.recv(4096).split(b"\r\n")[0].decode() or "closed"
                    except OSError as e:
                        first = type(e).__name__
                    answers.setdefault(first, []).append(now)
                    left.discard(s)

        watcher = threading.Thread(target=watch)
        watcher.start()
        time.sleep(0.2)
        probes = []
        for _ in range(10):
            probes.append(health())
            time.sleep(0.3)
        worst = max(p[0] for p in probes)
        statuses = sorted(set(p[1] for p in probes))
        print(f"{kind:8s} /v1/health: worst {worst * 1000:.0f} ms, median "
              f"{sorted(p[0] for p in probes)[5] * 1000:.0f} ms over 10 probes ({', '.join(statuses)})")
        watcher.join()
        for first, times in sorted(answers.items()):
            print(f"{'':8s} {len(times)} stalled connections answered {first!r} "
                  f"{min(times):.2f}-{max(times):.2f} s after they connected")
        for s in socks:
            s.close()
        time.sleep(2.5)
finally:
    server.terminate()
    server.wait()
