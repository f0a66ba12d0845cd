"""Tests of bench/summarize.py (the bench verdict) and bench/service_metrics.py (what B7/B7L/B11 read from
/metrics): a run is valid only when every case of its selection ran in full."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "summarize.py")
sys.path.insert(0, HERE)

import bench_cases  # noqa: E402
import service_metrics  # noqa: E402
import stages  # noqa: E402


def good_run(case):
    """A measured run in which every request succeeded (B4: its configured 1 % rejected)."""
    run = {"n": 1000, "rate": 1000.0, "accepted": 1000, "rejected": 0, "errors": 0, "succeeded": 1000,
           "status_2xx": 1000, "answered_rate": 1000.0, "cpu_us_per_notification": 5.0,
           "process_cpu_us_per_notification": 5.0, "server_cpu_us_per_request": 5.0, "peak_rss_mb": 30.0,
           "db_mb": 10.0, "p50_ms": 1.0, "p99_ms": 2.0}
    if case == "B4.client":
        run.update(accepted=990, rejected=10)
    if case in ("B7", "B7.budget", "B7.inflight-100") or case.startswith(("B7H.", "B7L.")):
        run["mock_cpu_us_per_notification"] = 2.0   # the mock in its own process, beside push-server's CPU
    if case == "B7":
        run["cpu_us_per_notification"] = 12.5
    if case == "B7.budget":
        per_stage = {stage: 0 for stage in stages.ORDER}
        per_stage.update({"HTTP + JSON": 5, "enqueue": 10, "claim": 15, "client": 20, "completion": 15,
                          "webhooks and metrics": 5, "other": 5, "mock": 25})
        run["budget"] = stages.budget(per_stage, 40.0)
    if case.startswith("B7H."):
        run.update(target_rate=500.0, offered_rate=500.0, p50_ms=41.0, p99_ms=50.0)
    if case.startswith("B7L."):
        run.update(db_mb_purged=5.0, db_mb_peak_by_tenth=[8.0, 20.0, 21.0, 20.0, 21.0, 20.0, 21.0, 20.0, 19.0, 12.0])
    return run


def raw_lines(selection="", change=None, drop=(), config=True):
    """bench/raw.jsonl for a complete run of `selection`: a warm-up and two measured runs of each case;
    `change(case, run)` spoils runs, `drop` leaves cases out."""
    lines = []
    for case in bench_cases.expected(selection):
        if case in drop:
            continue
        for kind in ("warmup", "run", "run"):
            run = good_run(case)
            if change and kind == "run":
                change(case, run)
            lines.append(f"{case}\t{kind}\t{json.dumps(run)}\t0.50")
    if config and "B4.client" in bench_cases.expected(selection):
        lines.append('B4.config\t{"reject_percent":1}')
    return lines


class SummarizeTests(unittest.TestCase):
    def summarize(self, lines, selection=None):
        """Runs summarize.py on `lines`; returns (exit status, results.json, summary.md)."""
        with tempfile.TemporaryDirectory() as directory:
            raw, results, summary = (os.path.join(directory, name) for name in ("raw.jsonl", "results.json", "summary.md"))
            with open(raw, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            args = [sys.executable, SCRIPT, raw, results, summary, "test"] + ([selection] if selection is not None else [])
            done = subprocess.run(args, capture_output=True, text=True, timeout=120)
            self.assertNotIn("Traceback", done.stderr)
            with open(results, encoding="utf-8") as f:
                data = json.load(f)
            with open(summary, encoding="utf-8") as f:
                return done.returncode, data, f.read()

    def test_a_complete_valid_run_is_every_run_valid(self):
        code, data, md = self.summarize(raw_lines())
        self.assertEqual(code, 0, md)
        self.assertTrue(data["valid"])
        self.assertEqual(data["invalid_cases"], [])
        self.assertIn("Validity: every run valid.", md)
        self.assertNotIn("— INVALID", md)

    def test_a_missing_case_is_invalid_named_and_exits_1(self):
        code, data, md = self.summarize(raw_lines(drop={"B12.danted", "B10.pg-w3"}))
        self.assertEqual(code, 1)
        self.assertFalse(data["valid"])
        self.assertEqual(data["missing_cases"], ["B10.pg-w3", "B12.danted"])
        self.assertIn("B12.danted", data["invalid_cases"])
        self.assertIn("B10.pg-w3", data["invalid_cases"])
        self.assertNotIn("every run valid", md)
        self.assertIn("- B12.danted: not run", md)

    def test_a_skipped_case_is_invalid_and_named(self):
        lines = raw_lines(drop={"B7"}) + ['B7\tskip\t{"skipped":"push-server not built"}']
        code, data, md = self.summarize(lines)
        self.assertEqual(code, 1)
        self.assertEqual(data["skipped_cases"], ["B7"])
        self.assertIn("B7", data["invalid_cases"])
        self.assertNotIn("every run valid", md)
        self.assertIn("- B7: skipped: push-server not built", md)

    def test_b4_rejections_must_come_at_the_configured_rate(self):
        for rejected, valid in ((10, True), (6, True), (14, True), (0, False), (4, False), (16, False), (50, False)):
            def change(case, run, rejected=rejected):
                if case == "B4.client":
                    run.update(accepted=1000 - rejected, rejected=rejected)
            code, data, md = self.summarize(raw_lines(change=change))
            self.assertEqual(data["valid"], valid, f"{rejected} of 1000 rejected: {data['invalid_cases']}")
            self.assertEqual(code, 0 if valid else 1)
            if not valid:
                self.assertEqual(data["invalid_cases"], ["B4.client"])
                self.assertIn("configured 1% ± 0.5 points", md)

    def test_b4_without_its_recorded_rate_is_invalid(self):
        code, data, _ = self.summarize(raw_lines(config=False))
        self.assertEqual(code, 1)
        self.assertEqual(data["invalid_cases"], ["B4.client"])

    def test_b7l_with_rejected_or_failed_notifications_is_invalid(self):
        for key in ("rejected", "failed"):
            def change(case, run, key=key):
                if case == "B7L.1000000":
                    run[key] = 3
            code, data, _ = self.summarize(raw_lines(change=change))
            self.assertEqual(code, 1)
            self.assertEqual(data["invalid_cases"], ["B7L.1000000"])

    def test_a_selection_expects_its_own_cases_only(self):
        code, data, md = self.summarize(raw_lines("b7"), selection="b7")
        self.assertEqual(code, 0, md)
        self.assertIn("every run valid", md)
        code, data, md = self.summarize(raw_lines("b7", drop={"B7L.1000000"}), selection="b7")
        self.assertEqual(code, 1)
        self.assertEqual(data["missing_cases"], ["B7L.1000000"])
        # The full selection is the default: a b7-only raw file misses everything else.
        code, data, _ = self.summarize(raw_lines("b7"))
        self.assertEqual(code, 1)
        self.assertIn("B1.client", data["missing_cases"])

    def test_the_b7h_selection_is_b7_and_b7h(self):
        code, data, _ = self.summarize(raw_lines("b7h"), selection="b7h")
        self.assertEqual(code, 0)
        self.assertEqual(data["invalid_cases"], [])
        row = next(r for r in data["table"] if r["case"].startswith("B7H service"))
        self.assertEqual(row["verdict"], "met")
        code, data, _ = self.summarize(raw_lines("b7h", drop={"B7H.0ms"}), selection="b7h")
        self.assertEqual(code, 1)
        self.assertIn("B7H.0ms", data["invalid_cases"])

    def test_b7l_judges_the_database_once_purged_and_its_peak_over_the_run(self):
        def verdict(change=None):
            _, data, _ = self.summarize(raw_lines("b7", change=change), selection="b7")
            return next(r for r in data["table"] if r["case"].startswith("B7L service"))["verdict"]
        # Larger at the end than B7's 100,000 unpurged (db_mb 12 vs 10) is reported, not judged.
        self.assertEqual(verdict(lambda case, run: run.update(db_mb=12.0) if case == "B7L.1000000" else None), "met")
        # Grown with the count: more left once everything is purged, or a peak that climbs through the run.
        self.assertEqual(verdict(lambda case, run: run.update(db_mb_purged=5.6) if case == "B7L.1000000" else None),
                         "not met")
        climbing = [8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0]
        self.assertEqual(verdict(lambda case, run: run.update(db_mb_peak_by_tenth=climbing)
                                 if case == "B7L.1000000" else None), "not met")
        # Not measured (the purge never came): not met.
        self.assertEqual(verdict(lambda case, run: run.update(db_mb_purged=None) if case == "B7L.1000000" else None),
                         "not met")

    def test_an_unknown_selection_is_refused(self):
        with tempfile.TemporaryDirectory() as directory:
            raw = os.path.join(directory, "raw.jsonl")
            open(raw, "w").close()
            done = subprocess.run([sys.executable, SCRIPT, raw, os.path.join(directory, "r.json"),
                                   os.path.join(directory, "s.md"), "test", "everything"], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2)
            self.assertIn("unknown selection", done.stderr)

    def test_b5_validating_path_is_judged_against_nghttpd(self):
        def change(case, run):
            if case == "B5.client-mock-validating":
                run.update(rate=500.0, server_cpu_us_per_request=15.0)
        _, data, _ = self.summarize(raw_lines(change=change))
        ratios = {r["name"]: r for r in data["ratios"]}
        rate = ratios["B5' our client: validating mock / nghttpd"]
        cpu = ratios["B5' server CPU per request: validating mock / nghttpd"]
        self.assertEqual((rate["value"], rate["verdict"]), (0.5, "not met"))
        self.assertEqual((cpu["value"], cpu["verdict"]), (3.0, "not met"))
        row = next(r for r in data["table"] if r["case"].startswith("B5' "))
        self.assertEqual(row["verdict"], "not met")
        _, data, _ = self.summarize(raw_lines())
        row = next(r for r in data["table"] if r["case"].startswith("B5' "))
        self.assertEqual(row["verdict"], "met")

    def test_the_budget_is_a_table_of_stages_beside_the_client_alone(self):
        code, data, md = self.summarize(raw_lines())
        self.assertEqual(code, 0, md)
        self.assertIn("### B7 cost budget per stage", md)
        budget = data["budget"]
        # 40 µs per notification over 100 samples: claim 15 % = 6 µs; the service without the mock's 25 % = 30 µs.
        self.assertAlmostEqual(budget["stages"]["claim"]["us"], 6.0)
        self.assertAlmostEqual(budget["service_us"], 30.0)
        self.assertAlmostEqual(budget["mock_us"], 10.0)
        self.assertAlmostEqual(budget["service_over_client"], 30.0 / 5.0)   # B1's process CPU: 5 µs
        self.assertIn("| claim | 6.0 | 15.0% |", md)
        self.assertIn("| service total (without the mock) | 30.0 | 75.0% |", md)
        self.assertIn("| service total / the client alone | 6.0× | |", md)
        # Its stages come in this order, the mock last.
        table = md.split("| Stage |")[1].split("| B1:")[0].splitlines()[2:]
        names = [line[2:].split(" | ")[0].split(" (")[0] for line in table
                 if not line.startswith(("| service total", "| the mock in its own process"))]
        self.assertEqual(names, stages.ORDER)
        # The mock runs apart: its CPU over the profiled run stands beside the stages, not in them.
        self.assertIn("| the mock in its own process, over the same run (not in push-server's CPU) | 2.0 | |", md)
        self.assertAlmostEqual(budget["mock_apart_us"], 2.0)

    def test_the_main_ratio_is_b7_server_cpu_over_b1_client_cpu(self):
        # B7: 12.5 µs of push-server's CPU per notification, B1's client 5 µs: 2.5× (goal ≤ 3×), the mock's 2 µs beside.
        for b7_cpu, verdict in ((12.5, "met"), (15.0, "met"), (15.5, "not met")):
            def change(case, run, b7_cpu=b7_cpu):
                if case == "B7":
                    run["cpu_us_per_notification"] = b7_cpu
            code, data, md = self.summarize(raw_lines(change=change))
            self.assertEqual(code, 0, md)
            ratio = next(r for r in data["ratios"] if r["name"] == "B7 server CPU / B1 client CPU per notification")
            self.assertEqual((ratio["value"], ratio["verdict"]), (b7_cpu / 5.0, verdict))
            row = next(r for r in data["table"] if r["case"].startswith("B7 server CPU per notification"))
            self.assertEqual(row["verdict"], verdict)
            self.assertTrue(row["figure"].startswith(f"{b7_cpu / 5.0:.1f}× ({b7_cpu:.1f} µs"), row["figure"])
        b7 = next(r for r in data["table"] if r["case"].startswith("B7 service"))
        self.assertIn("mock in its own process", b7["case"])
        self.assertIn("server CPU (push-server's process), the mock beside it 2.0 µs/notif (2.0–2.0) (its own process)",
                      b7["figure"])
        # A B7 run with a failure (the mock's report not as asked, say) makes the ratio invalid.
        def spoil(case, run):
            if case == "B7":
                run["first_error"] = "the mock's report says unique_ids True, not False"
        code, data, _ = self.summarize(raw_lines(change=spoil))
        self.assertEqual(code, 1)
        ratio = next(r for r in data["ratios"] if r["name"] == "B7 server CPU / B1 client CPU per notification")
        self.assertEqual(ratio["verdict"], "invalid")

    def test_the_main_selection_is_b1_beside_b7(self):
        self.assertEqual(bench_cases.expected("main"), ["B1.client", "B1.client-batch", "B1.h2load-mock", "B7", "B7.budget"])
        code, data, md = self.summarize(raw_lines("main"), selection="main")
        self.assertEqual(code, 0, md)
        self.assertIn("every run valid", md)
        ratio = next(r for r in data["ratios"] if r["name"] == "B7 server CPU / B1 client CPU per notification")
        self.assertEqual((ratio["value"], ratio["verdict"]), (2.5, "met"))
        self.assertAlmostEqual(data["budget"]["service_over_client"], 30.0 / 5.0)
        code, data, _ = self.summarize(raw_lines("main", drop={"B1.client"}), selection="main")
        self.assertEqual(code, 1)
        self.assertEqual(data["missing_cases"], ["B1.client"])

    def test_the_b7_selection_has_its_budget_without_b1(self):
        code, data, md = self.summarize(raw_lines("b7"), selection="b7")
        self.assertEqual(code, 0, md)
        self.assertIn("| B1: the client alone (whole process) | n/a (B1 not in this selection) | |", md)
        self.assertIsNone(data["budget"]["service_over_client"])

    def test_a_budget_without_perf_is_skipped_and_the_run_invalid(self):
        lines = raw_lines(drop={"B7.budget"}) + ['B7.budget\tskip\t{"skipped":"perf not installed (linux-perf)"}']
        code, data, md = self.summarize(lines)
        self.assertEqual(code, 1)
        self.assertEqual(data["skipped_cases"], ["B7.budget"])
        self.assertIsNone(data["budget"])
        self.assertIn("No budget: B7.budget skipped: perf not installed (linux-perf).", md)

    def test_b7h_p99_is_judged_against_the_mocks_40_ms(self):
        for p99, verdict in ((50.0, "met"), (60.0, "met"), (61.0, "not met"), (400.0, "not met")):
            def change(case, run, p99=p99):
                if case == "B7H.40ms":
                    run["p99_ms"] = p99
            code, data, _ = self.summarize(raw_lines(change=change))
            self.assertEqual(code, 0)
            ratio = next(r for r in data["ratios"] if r["name"].startswith("B7H p99"))
            self.assertEqual((ratio["value"], ratio["verdict"]), (p99 / 40, verdict))
            row = next(r for r in data["table"] if r["case"].startswith("B7H service"))
            self.assertEqual(row["verdict"], verdict)
        # Its load came from B7's rate: a B7 with errors makes it invalid too.
        def spoil_b7(case, run):
            if case == "B7":
                run["first_error"] = "not all accepted"
        _, data, _ = self.summarize(raw_lines(change=spoil_b7))
        row = next(r for r in data["table"] if r["case"].startswith("B7H service"))
        self.assertEqual(row["verdict"], "invalid")

    def test_b7h_with_a_failed_request_is_invalid(self):
        def change(case, run):
            if case == "B7H.0ms":
                run["error"] = "POST /v1/pushes answered 503"
        code, data, _ = self.summarize(raw_lines(change=change))
        self.assertEqual(code, 1)
        self.assertEqual(data["invalid_cases"], ["B7H.0ms"])


METRICS = """# HELP push_notifications_total Send results by app, outcome and APNs reason.
# TYPE push_notifications_total counter
push_notifications_total{app="default",outcome="accepted",reason=""} 990
push_notifications_total{app="default",outcome="rejected",reason="BadDeviceToken"} 4
push_notifications_total{app="default",outcome="failed",reason="InternalServerError"} 2
push_notifications_total{app="default",outcome="retry",reason="TooManyRequests"} 7
push_notifications_total{outcome="expired",reason="Expired"} 1
push_notifications_enqueued_total 1000
"""


class ServiceMetricsTests(unittest.TestCase):
    def test_outcomes_are_counted_apart(self):
        self.assertEqual(service_metrics.outcomes(METRICS), {"accepted": 990, "rejected": 4, "failed": 2, "expired": 1})
        # Finished, whatever the outcome: what a harness waits for (retries are not answers).
        self.assertEqual(service_metrics.answered(METRICS), 997)

    def test_purged_rows_are_read_per_table(self):
        page = METRICS + 'push_store_purged_rows_total{table="outbox"} 12000\npush_store_purged_rows_total{table="drops"} 3\n'
        self.assertEqual(service_metrics.purged(page, "outbox"), 12000)
        self.assertEqual(service_metrics.purged(page, "drops"), 3)
        self.assertEqual(service_metrics.purged(METRICS, "outbox"), 0)

    def test_b7l_counts_only_accepted_notifications(self):
        result = service_metrics.metrics_result(service_metrics.outcomes(METRICS), 997, 10.0, 2.0)
        self.assertEqual(result["n"], 990)
        self.assertEqual(result["rate"], 99.0)
        self.assertEqual((result["rejected"], result["failed"], result["expired"]), (4, 2, 1))
        self.assertIn("990 of 997 accepted", result["first_error"])
        self.assertAlmostEqual(result["cpu_us_per_notification"], 2.0 * 1e6 / 990)
        clean = service_metrics.metrics_result({"accepted": 1000}, 1000, 4.0, 1.0)
        self.assertEqual((clean["n"], clean["rate"]), (1000, 250.0))
        self.assertNotIn("first_error", clean)

    def test_half_rate_is_half_of_the_median_of_the_measured_runs(self):
        lines = ['B7\twarmup\t{"rate": 9000.0}\t0.5', 'B7\trun\t{"rate": 100.0}\t0.5', 'B7\trun\t{"rate": 300.0}',
                 'B7\trun\t{"rate": 200.0}', 'B7\trun\t{"rate": 800.0, "error": "timeout"}', 'B8.store\trun\t{"rate": 5.0}',
                 'B4.config\t{"reject_percent":1}']
        self.assertEqual(service_metrics.half_rate(lines, "B7"), 100.0)
        self.assertIsNone(service_metrics.half_rate(lines[:1], "B7"))
        self.assertIsNone(service_metrics.half_rate(['B7\tskip\t{"skipped":"push-server not built"}'], "B7"))


if __name__ == "__main__":
    unittest.main()
