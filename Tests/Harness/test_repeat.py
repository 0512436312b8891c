#!/usr/bin/env python3
"""Runs the Swift test suite several times and reports, per test, how many runs it failed.

    make test-repeat RUNS=10            # ten runs in a row
    make test-repeat RUNS=5 LOAD=1      # the same while stress-ng keeps every core busy

Swift Testing runs tests in parallel and in no fixed order; it has no option to shuffle. To
vary the interleaving from run to run, each run caps the number of tests in flight at a
different width (SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH), rotating through the width
`make test` runs at (--test-width, the Makefile's SWIFT_TEST_WIDTH), then 3, then 16. A test that
depends on which test ran before it, or beside it, shows up as failing in some runs and not
others. Not unbounded: then all of the suite's tests start at once on the cooperative pool's two
threads, each await waits behind the whole suite, and any test's wall clock is the suite's.

Each run writes its log and its xUnit report under the output folder. A run that ends without a
report (a crash, a hang past --run-timeout) counts as a failure of the run itself and names the
log to read. Exit status: 0 when every test passed in every run, 1 otherwise.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict

# After the width `make test` runs at (--test-width).
OTHER_WIDTHS = [3, 16]


def parse_report(path):
    """(test id, passed) for each test case in an xUnit report; empty for a report cut short
    (the test process crashed while writing it)."""
    results = []
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError:
        return []
    for case in root.iter("testcase"):
        name = f'{case.get("classname")}.{case.get("name")}'
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        if not skipped:
            results.append((name, not failed))
    return results


def start_load():
    """stress-ng on every core until stopped; None when it is not installed."""
    binary = shutil.which("stress-ng")
    if binary is None:
        sys.exit("test-repeat: LOAD=1 needs stress-ng (make test-repeat installs it with apt-get)")
    # --cpu 0: one worker per online core. Bounded in time so it can never outlive a lost parent.
    return subprocess.Popen(
        [binary, "--cpu", "0", "--cpu-method", "matrixprod", "--timeout", "6h", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )


def stop(process):
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--load", action="store_true", help="keep every core busy with stress-ng")
    parser.add_argument("--swift", default="swift")
    parser.add_argument("--output", default="test-results/repeat")
    parser.add_argument("--run-timeout", type=int, default=1800, help="seconds one run may take")
    parser.add_argument("--test-width", type=int, required=True, help="the width `make test` runs the suite at")
    parser.add_argument("swift_flags", nargs="*")
    options = parser.parse_args()

    shutil.rmtree(options.output, ignore_errors=True)
    os.makedirs(options.output)
    failures = defaultdict(int)
    seen = defaultdict(int)
    broken_runs = []
    load = start_load() if options.load else None
    try:
        widths = [options.test_width, *OTHER_WIDTHS]
        for run in range(1, options.runs + 1):
            width = widths[(run - 1) % len(widths)]
            environment = dict(os.environ, SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=str(width))
            log_path = os.path.join(options.output, f"run-{run}.log")
            report_base = os.path.join(options.output, f"run-{run}.xml")
            command = [options.swift, "test", "--skip-build", "--xunit-output", report_base, *options.swift_flags]
            started = time.monotonic()
            with open(log_path, "w") as log:
                process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment, start_new_session=True)
                try:
                    status = process.wait(timeout=options.run_timeout)
                except subprocess.TimeoutExpired:
                    stop(process)
                    status = "timed out"
            elapsed = time.monotonic() - started
            reports = [p for p in (report_base.replace(".xml", "-swift-testing.xml"), report_base) if os.path.exists(p)]
            results = [result for path in reports for result in parse_report(path)]
            failed_here = [name for name, passed in results if not passed]
            for name, passed in results:
                seen[name] += 1
                if not passed:
                    failures[name] += 1
            if not results or (status != 0 and not failed_here):
                broken_runs.append((run, status, log_path))
            print(f"run {run}/{options.runs}: {len(results)} tests, {len(failed_here)} failed, "
                  f"exit {status}, {elapsed:.0f} s, width {width}{', under load' if load else ''}", flush=True)
            for name in failed_here:
                print(f"    failed: {name}", flush=True)
    finally:
        stop(load)

    print()
    print(f"test-repeat: {options.runs} runs{' under load (stress-ng on every core)' if options.load else ''}, "
          f"{len(seen)} tests")
    if failures:
        print("failures per test:")
        for name, count in sorted(failures.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {count}/{seen[name]}  {name}")
    for run, status, log_path in broken_runs:
        print(f"run {run} ended with exit {status} and no failing test in its report: read {log_path}")
    passed_total = sum(seen.values()) - sum(failures.values())
    print(f"{passed_total} passed, {sum(failures.values())} failed")
    return 1 if failures or broken_runs else 0


if __name__ == "__main__":
    sys.exit(main())
