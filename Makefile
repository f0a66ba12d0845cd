# The two commands a newcomer types: `make run` and `make test`.
SWIFT ?= swift
DEB_PACKAGES := libssl-dev libnghttp2-dev libevent-dev libsqlite3-dev pkg-config nghttp2-client nghttp2-server curl openssl python3 \
  python3-venv openjdk-17-jdk-headless junit5 prometheus systemd tinyproxy dante-server
PKG_MODULES := openssl libnghttp2 libevent_openssl libevent_pthreads sqlite3
# prometheus and promtool check deploy/prometheus and deploy/grafana; systemd-analyze checks deploy/systemd;
# tinyproxy and danted are the egress proxies the proxy tests run.
TOOLS := h2load nghttpd nghttp curl openssl python3 java javac prometheus promtool systemd-analyze tinyproxy danted
# Files the example suites need that no command on PATH stands for.
DEP_FILES := /usr/share/java/junit-platform-console-standalone.jar
# pushctl's completion tests run zsh; its --output yaml tests read the YAML back with Python's yaml.
DEB_PACKAGES += zsh python3-yaml
# make bench's B7.budget and make bench-profile sample with perf (a bench without it is invalid).
DEB_PACKAGES += linux-perf
TOOLS += perf
# make cluster and the cluster tests put haproxy in front of several push-server instances.
DEB_PACKAGES += haproxy
TOOLS += haproxy
TOOLS += zsh
DEP_FILES += /usr/lib/python3/dist-packages/yaml/__init__.py
# PostgreSQL: libpq for the PostgreSQL store (CLibPQ), and the server the tests start throwaway clusters of
# (initdb, pg_ctl and postgres from Debian's postgresql-15, which the `postgresql` package pulls in; psql).
DEB_PACKAGES += postgresql libpq-dev
PKG_MODULES += libpq
TOOLS += psql
DEP_FILES += /usr/lib/postgresql/15/bin/initdb /usr/lib/postgresql/15/bin/pg_ctl /usr/lib/postgresql/15/bin/postgres
# The web console's browser test: Debian's Chromium and its driver (Selenium is given /usr/bin/chromedriver).
DEB_PACKAGES += chromium chromium-driver
TOOLS += chromium chromedriver
# make deb: the static link of pushctl takes Foundation's URLSession, which needs libcurl; dpkg-shlibdeps
# (dpkg-dev) derives Depends, help2man the man pages; make deb-test runs lintian and file on the package.
DEB_PACKAGES += libcurl4-openssl-dev dpkg-dev help2man lintian file
PKG_MODULES += libcurl
TOOLS += dpkg-shlibdeps help2man lintian file

.PHONY: deps deb deb-test conformance-tools client-tools console-tools lint format build release run cluster test test-tools test-examples bench bench-profile chaos chaos-goaway chaos-cluster chaos-failover chaos-kills sanitize sanitize-address sanitize-thread fuzz clean

## deps: install the Debian packages that are missing (apt-get as root, otherwise print the command), and
## the system account the SOCKS5 proxy tests authenticate as (Tests/Proxies/socks-test-user.sh, as root)
deps:
	@missing=""; \
	for m in $(PKG_MODULES); do pkg-config --exists $$m 2>/dev/null || missing="yes"; done; \
	for t in $(TOOLS); do PATH="$$PATH:/usr/sbin:/sbin" command -v $$t >/dev/null 2>&1 || missing="yes"; done; \
	for f in $(DEP_FILES); do [ -f $$f ] || missing="yes"; done; \
	python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="yes"; \
	if [ -n "$$missing" ]; then \
	  need=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || need="$$need $$p"; done; \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "deps: installing$$need"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$need >/dev/null; \
	  else \
	    echo "deps: missing packages; run: sudo apt-get update && sudo apt-get install -y$$need"; exit 1; \
	  fi; \
	fi; \
	if [ ! -s /var/lib/push-socks-test/password ]; then \
	  if [ "$$(id -u)" = "0" ]; then ./Tests/Proxies/socks-test-user.sh; \
	  else echo "deps: the SOCKS5 proxy tests need a test account; run: sudo ./Tests/Proxies/socks-test-user.sh"; fi; \
	fi

## build: debug build of everything
build: deps
	$(SWIFT) build

## release: optimised build
release: deps
	$(SWIFT) build -c release

## run: start push-server on 127.0.0.1:8080 with the embedded mock APNs and ./var for data
run: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product pushctl
	@echo "pushctl is at ./.build/release/pushctl"
	@echo "the web console will be at http://127.0.0.1:8080/console (sign in with the API key printed below)"
	./.build/release/push-server --embedded --data-dir ./var

## cluster: a local PostgreSQL, three push-server instances on it (each with the embedded mock APNs) and
## haproxy on 127.0.0.1:8080 in front of them; prints the API key and how to reach them; Ctrl-C stops all
cluster: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product pushctl
	./deploy/cluster/run.sh 3 8080

## test: the whole test suite (unit, integration, interop against nghttpd, h2load and curl, and the API
## contract check with schemathesis from PyPI, installed once into .build/conformance-venv), then the
## example suites outside the package (test-examples)
## Tests/deadline.py stops a test that runs longer than TEST_DEADLINE seconds, or a run longer than
## RUN_DEADLINE, and names the tests running then (the slowest tests go to .build/slowest-tests.txt).
CONFORMANCE_VENV := .build/conformance-venv
SCHEMATHESIS_VERSION := 4.32.5
KALYKE_VERSION := 1.5.0
TEST_DEADLINE ?= 300
RUN_DEADLINE ?= 1200
EXAMPLES_DEADLINE ?= 600
test: deps conformance-tools client-tools console-tools lint
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory test-tools
	python3 Tests/deadline.py --per-test $(TEST_DEADLINE) --total $(RUN_DEADLINE) --report .build/slowest-tests.txt -- \
	  $(SWIFT) test --skip-build --no-parallel
	@timeout --foreground -k 10 $(EXAMPLES_DEADLINE) $(MAKE) --no-print-directory test-examples || \
	  { status=$$?; [ $$status -eq 124 ] && echo "test-examples: stopped after $(EXAMPLES_DEADLINE) s"; exit $$status; }

## deb: push-server_<version>_<arch>.deb in .build/deb/package (deploy/debian/build.sh): push-server and
## pushctl built in release with the Swift runtime and Foundation linked in (--static-swift-stdlib) and
## stripped, the systemd unit, /etc/push-server/push-server.env as a conffile, man pages from --help,
## bash and zsh completions; Depends from dpkg-shlibdeps. The version is the one the binaries print.
DEB_SCRATCH := .build/deb
deb: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(DEB_SCRATCH) --product push-server
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(DEB_SCRATCH) --product pushctl
	./deploy/debian/build.sh $(DEB_SCRATCH)/release $(DEB_SCRATCH)/package

## deb-test: make deb, then deploy/debian/test.sh (as root): one version, nothing from the toolchain (ldd,
## and a run with its directory hidden), lintian, and apt-get install, a push through pushctl as an
## unprivileged user and apt-get purge in a throwaway overlay of this system. A step of .ci/run after make test.
deb-test: deb
	./deploy/debian/test.sh "$$(ls $(DEB_SCRATCH)/package/push-server_*.deb)" docs/OPERATING.md

## test-tools: the tests of the Python tools the suite and the bench rely on (Tests/*.py, bench/*.py)
test-tools:
	python3 -m unittest discover -s Tests -p 'test_*.py'
	python3 -m unittest discover -s bench -p 'test_*.py'

## test-examples: the suites in examples/ against the mock APNs: JUnit 5 (JDK HTTP/2 client) and pytest
## (aioapns) against `pushctl mock-apns --control-port`, and a separate Swift package using MockAPNSServer
EXAMPLE_SCRATCH := .build/examples/swift-package
test-examples: deps
	$(SWIFT) build --product pushctl
	./examples/java-junit/run.sh
	./examples/python-pytest/run.sh
	$(SWIFT) build --build-tests --package-path examples/swift-package --scratch-path $(EXAMPLE_SCRATCH)
	$(SWIFT) test --skip-build --package-path examples/swift-package --scratch-path $(EXAMPLE_SCRATCH)

## lint: the house style (.swift-format, swift-format from the toolchain); any finding fails
SWIFT_FORMAT_PATHS := Package.swift Sources Tests Fuzz examples/swift-package
lint:
	$(SWIFT) format lint --strict -r $(SWIFT_FORMAT_PATHS)

## format: rewrite the Swift sources in the house style
format:
	$(SWIFT) format -i -r $(SWIFT_FORMAT_PATHS)

## conformance-tools: schemathesis (pinned) in .build/conformance-venv for the OpenAPI conformance test, and the
## third-party APNs client kalyke-apns (pinned) that Tests/ThirdParty/kalyke_mock_apns.py drives the mock with
conformance-tools:
	@if ! $(CONFORMANCE_VENV)/bin/schemathesis --version 2>/dev/null | grep -q "$(SCHEMATHESIS_VERSION)"; then \
	  echo "conformance-tools: installing schemathesis $(SCHEMATHESIS_VERSION) into $(CONFORMANCE_VENV)"; \
	  python3 -m venv $(CONFORMANCE_VENV) && $(CONFORMANCE_VENV)/bin/pip install -q "schemathesis==$(SCHEMATHESIS_VERSION)"; \
	fi
	@if [ ! -f $(CONFORMANCE_VENV)/.kalyke-apns-$(KALYKE_VERSION) ]; then \
	  echo "conformance-tools: installing kalyke-apns $(KALYKE_VERSION) into $(CONFORMANCE_VENV)"; \
	  { [ -x $(CONFORMANCE_VENV)/bin/pip ] || python3 -m venv $(CONFORMANCE_VENV); } && \
	  $(CONFORMANCE_VENV)/bin/pip install -q "kalyke-apns==$(KALYKE_VERSION)" && touch $(CONFORMANCE_VENV)/.kalyke-apns-$(KALYKE_VERSION); \
	fi

## client-tools: openapi-python-client (pinned) in .build/client-venv for the generated-client tests
## (Tests/PushCtlTests/GeneratedClientTests.swift: Python clients from docs/openapi.yaml and docs/mock-control.yaml)
CLIENT_VENV := .build/client-venv
OPENAPI_PYTHON_CLIENT_VERSION := 0.29.1
client-tools:
	@if ! $(CLIENT_VENV)/bin/openapi-python-client --version 2>/dev/null | grep -q "$(OPENAPI_PYTHON_CLIENT_VERSION)"; then \
	  echo "client-tools: installing openapi-python-client $(OPENAPI_PYTHON_CLIENT_VERSION) into $(CLIENT_VENV)"; \
	  python3 -m venv $(CLIENT_VENV) && $(CLIENT_VENV)/bin/pip install -q "openapi-python-client==$(OPENAPI_PYTHON_CLIENT_VERSION)"; \
	fi

## console-tools: Selenium (pinned) in .build/console-venv for the web console's browser test
CONSOLE_VENV := .build/console-venv
SELENIUM_VERSION := 4.27.1
console-tools:
	@if ! $(CONSOLE_VENV)/bin/python -c 'import selenium, sys; sys.exit(selenium.__version__ != "$(SELENIUM_VERSION)")' 2>/dev/null; then \
	  echo "console-tools: installing selenium $(SELENIUM_VERSION) into $(CONSOLE_VENV)"; \
	  python3 -m venv $(CONSOLE_VENV) && $(CONSOLE_VENV)/bin/pip install -q "selenium==$(SELENIUM_VERSION)"; \
	fi

## bench: benchmarks side by side with h2load, nghttpd and a peer client; writes bench/results.json, bench/summary.md
## and the results section of bench/README.md (method and cases there)
bench: deps
	./bench/run.sh

## bench-profile: perf profile of B1 (our client alone) into bench/profile-B1.txt and a flame graph, bench/profile-B1.svg
## (PROFILE_ARGS="--batch 100" for send(batch:)); PROFILE_CASE=B7: push-server during a B7 run (the mock in
## its own process, as B1's), with its samples by stage, into bench/profile-B7.txt and bench/profile-B7.svg
bench-profile: deps
	./bench/profile.sh

## chaos: 100,000 pushes through push-server while the mock APNs injects GOAWAY, resets, 429/503 and jitter,
## with three SIGKILLs; reconciles the outbox with the mock and writes bench/chaos.json
CHAOS_PUSHES ?= 100000
chaos: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product push-chaos
	./.build/release/push-chaos --server ./.build/release/push-server --pushes $(CHAOS_PUSHES) --json bench/chaos.json
	$(MAKE) chaos-goaway

## chaos-goaway: 100,000 pushes while the mock sends GOAWAY every 1,000 streams and closes the connection
## 0.5 s later (answers owed then go out just before the FIN), answers 1% 429 + 1% 503 and drops the stream
## limit to 1 after each; no reset, no kill, so any notification accepted twice fails; writes bench/chaos-goaway.json
chaos-goaway: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product push-chaos
	./.build/release/push-chaos --server ./.build/release/push-server --pushes $(CHAOS_PUSHES) --kills 0 \
		--close-every 0 --goaway-every 1000 --goaway-close-ms 500 --limit-flip 1 --jitter-ms 1000 \
		--batch 100 --concurrency 8 --json bench/chaos-goaway.json
	$(MAKE) chaos-cluster

## chaos-cluster: the same 100,000 pushes and faults through three push-server instances on one throwaway
## PostgreSQL database behind haproxy (10 s outbox lease), SIGKILLing one instance three times (each restarted);
## checks that a killed instance's in-flight rows go out again only after their lease, that every duplicate
## is one of them or follows a reset connection, and the outbox indexes (amcheck); writes bench/chaos-cluster.json
chaos-cluster: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product push-chaos
	./.build/release/push-chaos --server ./.build/release/push-server --pushes $(CHAOS_PUSHES) --instances 3 \
		--lease-s 10 --json bench/chaos-cluster.json

## chaos-failover: two push-server instances on a PostgreSQL primary with a synchronous streaming standby
## (initdb, pg_basebackup -R), on the multi-host URL; under load the primary is stopped hard (drill 1) or
## frozen with SIGSTOP (drill 2) and the standby promoted; every notification answered 202 must be delivered
## (lost 0); recovery time and duplicates reported; writes bench/chaos-failover.json
FAILOVER_PUSHES ?= 20000
chaos-failover: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product push-chaos
	./.build/release/push-chaos --server ./.build/release/push-server --failover hard,freeze --instances 2 \
		--pushes $(FAILOVER_PUSHES) --batch 100 --concurrency 8 --lease-s 10 --json bench/chaos-failover.json

## chaos-kills: duplicates per kill in a short cluster run: 10,000 pushes (100 tokens per post) through three
## push-server instances on PostgreSQL, two SIGKILLs, no connection reset (GOAWAYs, 429/503 and jitter as above);
## instances at max_in_flight 100; reports the duplicates of each kill and fails on any duplicate without a shared collapse id;
## writes bench/chaos-kills.json
chaos-kills: deps
	$(SWIFT) build -c release --product push-server
	$(SWIFT) build -c release --product push-chaos
	./.build/release/push-chaos --server ./.build/release/push-server --pushes 10000 --batch 100 --kills 2 --close-every 0 \
		--instances 3 --lease-s 10 --max-in-flight 100 --json bench/chaos-kills.json

## sanitize: the whole suite under ThreadSanitizer, then under AddressSanitizer
sanitize: sanitize-thread sanitize-address

## sanitize-thread: the whole suite under ThreadSanitizer; a report in the tests or in a push-server or
## pushctl they start stops that process (halt_on_error) and is kept in .build/tsan/reports; any report fails
TSAN_REPORTS := $(CURDIR)/.build/tsan/reports
sanitize-thread: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	TSAN_OPTIONS="halt_on_error=1 log_path=$(TSAN_REPORTS)/report" \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan --no-parallel; status=$$?; \
	if [ -n "$$(ls -A $(TSAN_REPORTS))" ]; then \
	  cat $(TSAN_REPORTS)/*; echo "sanitize-thread: ThreadSanitizer reports (kept in $(TSAN_REPORTS))"; exit 1; \
	fi; exit $$status

## sanitize-address: the whole suite under AddressSanitizer (at-exit leak reports of child processes off)
sanitize-address: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan --no-parallel

## fuzz: libFuzzer (with AddressSanitizer) on the request body decoders and on the APNs payload builder,
## FUZZ_SECONDS each; seeds in Fuzz/corpus, new inputs in .build/fuzz/corpus; a crash fails and keeps its input
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz-requests fuzz-payload
fuzz: deps
	for target in $(FUZZ_TARGETS); do \
	  $(SWIFT) build -c release --scratch-path .build/fuzz --product $$target \
	    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING || exit 1; \
	done
	@for target in $(FUZZ_TARGETS); do \
	  mkdir -p .build/fuzz/corpus/$$target .build/fuzz/artifacts/$$target; \
	  dict=""; [ -f Fuzz/$$target.dict ] && dict="-dict=Fuzz/$$target.dict"; \
	  echo "fuzz: $$target for $(FUZZ_SECONDS) s (log: .build/fuzz/$$target.log)"; \
	  if ! SWIFT_BACKTRACE=enable=no ./.build/fuzz/release/$$target -max_total_time=$(FUZZ_SECONDS) \
	      -print_final_stats=1 $$dict -artifact_prefix=.build/fuzz/artifacts/$$target/ \
	      .build/fuzz/corpus/$$target Fuzz/corpus/$$target > .build/fuzz/$$target.log 2>&1; then \
	    tail -n 40 .build/fuzz/$$target.log; \
	    echo "fuzz: $$target FAILED; the input is in .build/fuzz/artifacts/$$target/"; exit 1; \
	  fi; \
	  grep -E '(DONE|stat::number_of_executed_units|stat::new_units_added)' .build/fuzz/$$target.log; \
	done

clean:
	rm -rf .build
