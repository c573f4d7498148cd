"""CPU tests of bench/host_overhead.py's timing helpers (Note [Interleaved
host timing]): the order paths are timed in, and the paired differences."""
import host_overhead


def test_interleaved_rotates_the_order_and_keeps_samples_per_path():
    order = []

    def block(name, us):
        def run(calls):
            order.append(name)
            return us
        return run

    paths = {"raw": (block("raw", 3.0), None), "a": (block("a", 8.0), None),
             "b": (block("b", 9.0), None)}
    samples = host_overhead.interleaved_us(paths, calls=10, repeats=4, sync=lambda: None)
    assert samples == {"raw": [3.0] * 4, "a": [8.0] * 4, "b": [9.0] * 4}
    # Each repeat times every path once, starting one later each time.
    assert order == ["raw", "a", "b", "a", "b", "raw", "b", "raw", "a", "raw", "a", "b"]


def test_block_calls_the_function_directly():
    seen = []
    synced = []
    us = host_overhead.block_us(lambda x, y: seen.append((x, y)), (1, 2), 5,
                                lambda: synced.append(1))
    assert seen == [(1, 2)] * 5 and len(synced) == 2 and us >= 0


def test_paired_over_takes_out_drift_between_repeats():
    # The host slows down by 4 us per call between repeats; both paths see it.
    samples = {"raw": [3.0, 7.0, 11.0], "fd": [8.0, 12.5, 16.0]}
    assert host_overhead.paired_over(samples, "fd", "raw") == 5.0
    # A slow stretch that caught fd twice and raw once: the medians of each
    # path would differ by 11 us, the paired differences say 5.
    samples = {"raw": [3.0, 3.0, 9.0], "fd": [8.0, 14.0, 14.0]}
    assert host_overhead.paired_over(samples, "fd", "raw") == 5.0


def test_chunked_drains_the_gpu_between_chunks():
    events = []
    block = host_overhead.chunked(lambda x: events.append(x), ("call",),
                                  lambda: events.append("sync"), chunk=4)
    us = block(10)
    assert us >= 0
    # Chunks of 4, 4 and 2 calls, a sync before each and one at the end.
    assert events == (["sync"] + ["call"] * 4) * 2 + ["sync"] + ["call"] * 2 + ["sync"]
