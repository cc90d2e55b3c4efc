"""Timing helpers shared by the tools/bench_pytorch_*.py scripts."""
import time


def median_of_3(fn, min_time):
    """Calls fn once to warm up, then times 3 repetitions of at least min_time
    seconds each; returns the median repetition's (wall, process CPU) seconds
    per call."""
    fn()
    reps = []
    for _ in range(3):
        iters, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < min_time:
            fn()
            iters += 1
        reps.append(((time.perf_counter() - start) / iters, (time.process_time() - cpu) / iters))
    return sorted(reps)[1]
