#!/usr/bin/python3
"""Peer for bench/run_ingest.sh: the pandas way to load an nvidia-smi log.

pandas.read_csv of the whole file, pandas.to_datetime of its timestamps
(explicit format, the fast path), then the mean power per GPU so that the
parsed data is used. Run with Debian's /usr/bin/python3 (python3-pandas).
Prints the elapsed seconds and the peak RSS.

usage: peer_pandas_ingest.py POWER.csv
"""
import resource
import sys
import time

import pandas as pd


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    t0 = time.perf_counter()
    df = pd.read_csv(sys.argv[1])
    df["timestamp"] = pd.to_datetime(df["timestamp"], format="%Y/%m/%d %H:%M:%S.%f")
    power = next(c for c in df.columns if c.startswith("power.draw"))
    means = df.groupby("index")[power].mean()
    elapsed = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print("pandas %s: %d rows, %d GPUs, mean power GPU 0 %.1f W, %.2f s, peak RSS %.0f MB"
          % (pd.__version__, len(df), len(means), means.iloc[0], elapsed, rss_mb))


if __name__ == "__main__":
    main()
