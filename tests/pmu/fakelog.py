"""The attribute log of the fake PMU (tests/pmu/fakepmu.c): one line of
key=value pairs per perf_event_open, numbers as ints."""
import os

PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_RAW = 0, 1, 4
PERF_SAMPLE_BRANCH_STACK = 1 << 11
PERF_SAMPLE_BRANCH_USER = 1 << 0
PERF_SAMPLE_BRANCH_CALL_STACK = 1 << 11
HW_CPU_CYCLES, HW_INSTRUCTIONS = 0, 1


def load(path=None):
    path = path or os.environ["FAKEPMU_LOG"]
    opens = []
    if not os.path.exists(path):
        return opens
    for line in open(path):
        d = {}
        for field in line.split():
            k, _, v = field.partition("=")
            try:
                d[k] = int(v, 0)
            except ValueError:
                d[k] = v
        opens.append(d)
    return opens


def sampling(opens):
    """The sampling opens (one per CPU and attempt)."""
    return [o for o in opens if o["sample"] != 0]


def counting(opens):
    return [o for o in opens if o["sample"] == 0 and o["read_format"]]


def ok(opens):
    return [o for o in opens if o["result"] >= 0]
