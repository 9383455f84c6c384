#!/usr/bin/env python3
"""How hst-vs-st-2020.tsv was made: a one-off transcription of seed 000
("HST vs. ST benchmarking", G. Krisman Bertazi, 2020-04-16).

    python3 harness/repro/data/extract-seed000.py SEED > harness/repro/data/hst-vs-st-2020.tsv

It refuses (exit 1, naming the seed line) anything it does not
recognise, so a damaged seed cannot silently drop a table. The
'carried' column is computed, not transcribed: see docs/reference-2020.md.
"""
import re
import sys

TOPOLOGY = {"1": ("equal3", 3), "2": ("skew4", 4), "3": ("u10", 10)}
SELECTOR = {"ST": "service-time 0", "HST": "historical-service-time 2"}
COLUMNS = "reads rmerg secR tRed wrts wmerg secW tWrit".split()
FIO = ("fio --ioengine=libaio --size=500M --bs=4k --direct=1 --numjobs 1 "
       "--filename=/dev/mapper/mpatha --name=bla --rw={rw} --iodepth={qd}")


def die(path, lineno, msg):
    sys.exit(f"{path}:{lineno}: {msg}")


def carried(rw, row):
    """Columns that are not this run's delta. Read runs: time or sectors
    with no I/O of that direction, left over from earlier runs. Write
    runs: tWrit is the cumulative counter as it stood when the run
    started (it trails the run by one table), so it is never this run's."""
    v = dict(zip(COLUMNS, row))
    out = []
    if v["reads"] == 0:
        out += [c for c in ("secR", "tRed") if v[c]]
    if v["wrts"] == 0:
        out += [c for c in ("secW", "tWrit") if v[c]]
    if "write" in rw and "tWrit" not in out:
        out.append("tWrit")
    return ",".join(out) or "-"


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    topo = rw = qd = sel = None
    rows, tables = [], 0
    i = 0
    while i < len(lines):
        line, lineno = lines[i], i + 1
        m = re.match(r"^([123]) (\S.*)$", line)
        if m and i + 2 < len(lines) and lines[i + 2] == f"{m.group(1)}.1 Setup":
            topo = m.group(1)
        m = re.match(r"^([123])\.\d (read|write|randread|randwrite)$", line)
        if m:
            if m.group(1) != topo:
                die(path, lineno, "section outside its topology")
            rw = m.group(2)
        m = re.match(r"^([123])\.\d\.\d iodepth = (\d+)$", line)
        if m:
            qd = int(m.group(2))
        if line.startswith("fio "):
            if line.strip() != FIO.format(rw=rw, qd=qd):
                die(path, lineno, f"fio line does not match {rw} qd {qd}")
        m = re.match(r"^  [12]\. (ST|HST)$", line)
        if m:
            sel = m.group(1)
        m = re.search(r"policy='([^']*)'", line)
        if m and m.group(1) != SELECTOR[sel]:
            die(path, lineno, f"policy '{m.group(1)}' under {sel}")
        if line.startswith("dev\treads"):
            if line.split("\t") != ["dev"] + COLUMNS:
                die(path, lineno, "unexpected table header")
            name, npaths = TOPOLOGY[topo]
            for p in range(npaths):
                i += 1
                cells = [c.strip() for c in lines[i].split("\t")]
                while cells and cells[-1] == "":
                    cells.pop()     # the seed's trailing tab
                dev = "sd" + chr(ord("a") + p)
                if len(cells) != 9 or cells[0] != dev:
                    die(path, i + 1, f"expected a row for {dev}")
                nums = [int(c) for c in cells[1:]]
                rows.append([name, rw, str(qd), sel, str(p + 1), dev]
                             + [str(n) for n in nums] + [carried(rw, nums)])
            if i + 1 < len(lines) and lines[i + 1].startswith("sd"):
                die(path, i + 2, f"more rows than {npaths} paths")
            tables += 1
        i += 1
    if tables != 96:
        die(path, len(lines), f"{tables} tables, expected 96")
    print("# Published per-path /proc/diskstats deltas of 'HST vs. ST benchmarking'")
    print("# (Gabriel Krisman Bertazi, 2020-04-16), transcribed from seed")
    print("# 000_d49025ce825d2f61.txt by harness/repro/data/extract-seed000.py.")
    print("# Every run: " + FIO.format(rw="RW", qd="N"))
    print("# Selectors: ST = policy 'service-time 0', HST = 'historical-service-time 2'.")
    print("# Topologies: equal3 = 3 equal paths; skew4 = 3 equal + path 4 (sdd) 4x")
    print("# worse; u10 = 10 paths, delay multipliers 1,1,1,4,8,8,16,16,1,1.")
    print("# Times in ms, sectors of 512 bytes, numbers exactly as published.")
    print("# carried: columns that are not this run's: tWrit with wrts 0 in read")
    print("# runs (left over from earlier runs), and tWrit in every write run (a")
    print("# cumulative counter that trails the run by one table); '-' when none.")
    print("# See docs/reference-2020.md.")
    print("\t".join(["topology", "rw", "iodepth", "selector", "path", "dev"]
                    + COLUMNS + ["carried"]))
    for r in rows:
        print("\t".join(r))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: extract-seed000.py SEED")
    main(sys.argv[1])
