#!/usr/bin/env python3
"""Synthetic nvidia-smi power log for bench/run_ingest.sh.

Writes what `nvidia-smi --query-gpu=timestamp,index,uuid,power.draw,clocks.sm,
clocks.mem,utilization.gpu,utilization.memory,memory.used,temperature.gpu
--format=csv,nounits -lms 100` would log for GPUS GPUs (one row per GPU per
sample, local wall-clock timestamps) until the file reaches SIZE bytes. The
header carries units like the powertrace-sim logs (`power.draw [W]`), the
values do not, so pandas reads every column as numbers. Power follows a
seeded serving pattern: idle near 85 W, bursts of batches up to ~450 W.

usage: gen_nvsmi.py OUT SIZE_BYTES [GPUS] [INTERVAL_MS]
"""
import datetime
import random
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, size = sys.argv[1], int(float(sys.argv[2]))
    gpus = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    step_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    rng = random.Random(20260712)
    uuids = ["GPU-%08x-%04x-%04x-%04x-%012x" % tuple(rng.getrandbits(b) for b in (32, 16, 16, 16, 48))
             for _ in range(gpus)]
    start = datetime.datetime(2026, 7, 18, 15, 57, 25)
    header = ("timestamp,index,uuid,power.draw [W],clocks.sm [MHz],clocks.mem [MHz],"
              "utilization.gpu [%],utilization.memory [%],memory.used [MiB],temperature.gpu\n")
    written = 0
    level = [85.0] * gpus
    busy_left = 0
    i = 0
    with open(out, "w", buffering=1 << 22) as f:
        f.write(header)
        written += len(header)
        while written < size:
            lines = []
            # 10 samples at a time share the date/time formatting work.
            for _ in range(10):
                t = start + datetime.timedelta(milliseconds=i * step_ms)
                ts = t.strftime("%Y/%m/%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)
                if busy_left == 0 and rng.random() < 0.008:
                    busy_left = rng.randint(20, 300)
                target = 420.0 if busy_left else 85.0
                busy_left = max(0, busy_left - 1)
                for g in range(gpus):
                    level[g] += 0.5 * (target - level[g]) + rng.gauss(0.0, 6.0 if busy_left else 0.4)
                    util = 95 if busy_left else 0
                    lines.append("%s,%d,%s,%.2f,1410,1593,%d,%d,73877,%d\n"
                                 % (ts, g, uuids[g], level[g], util, util * 4 // 5, 40 + g))
                i += 1
            chunk = "".join(lines)
            f.write(chunk)
            written += len(chunk)
    print("%s: %d bytes, %d samples x %d GPUs, %d ms" % (out, written, i, gpus, step_ms))


if __name__ == "__main__":
    main()
