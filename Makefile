# The project's entry point: `make help` lists the targets.
SHELL       := /bin/bash
SWIFT       ?= swift
REPORTS     ?= Reports
# Extra arguments for the conformance and stress commands, e.g. ARGS="--subject queue".
ARGS        ?=
# Back-to-back runs of `make conformance-loaded`, and (when given) runs per mutant of `make conformance-mutants`.
RUNS        ?= 20
MUTANT_RUNS ?= $(if $(filter command line,$(origin RUNS)),$(RUNS),10)
# The nightly stress job's wall-clock budget: 90s, 30m, 2h …
BUDGET      ?= 30m
# The soak's budget; at its default the soak makes 10^8 actions or fails (a 2-core machine makes
# about 1.5 million a second through the eight reference schedulers).
SOAK_BUDGET ?= 3m
SOAK_ACTIONS := 100000000
# Loaded runs of `make conformance-loaded` at once: each is the others' load beside the busy loops.
LOADED_JOBS ?= 1
# Subjects for `make stress` (comma-separated names or groups: reference, third-party); default: reference.
SUBJECTS    ?=

CONFORMANCE := .build/release/conformance
STRESS      := .build/release/stress
# The third-party matrix is a package of its own, so adopters never resolve swift-nio or OpenCombine.
THIRD_PARTY := Conformance/ThirdParty
# The source mutator behind `conformance mutate`: a package of its own, so that no tool built on
# the harness compiles swift-syntax.
MUTATOR     := Conformance/Mutator
MATRIX_CONFORMANCE := $(THIRD_PARTY)/.build/release/matrix-conformance
MATRIX_STRESS      := $(THIRD_PARTY)/.build/release/matrix-stress
# A test command ($(1)) whose output is kept in $(2); when it fails, its failing tests are
# printed again at the end, where a CI log cut to its tail still shows them.
RUN_TESTS = set -o pipefail; mkdir -p $(dir $(2)); $(1) 2>&1 | tee $(2); status=$$?; \
	if [ $$status -ne 0 ]; then $(call FAILING,$(2)); fi; exit $$status
# The built test bundle $(1) run as `swift test --skip-build` runs it (XCTest's tests, then
# Swift Testing's), but without holding its build folder: another package's build can use the
# folder meanwhile. Uncoloured, as `swift test` writes to a pipe. Fails when either library's
# tests failed.
RUN_BUNDLE = { export NO_COLOR=1; $(1); xctest=$$?; $(1) --testing-library swift-testing; testing=$$?; \
	[ $$xctest -eq 0 ] && [ $$testing -eq 0 ]; }
# As RUN_BUNDLE, with Swift Testing's test $(2) in a second process beside the others, its
# output kept in $(3) and printed after theirs. The mutant-kill test runs its mutants on
# threads and queues of its own; in the one test process it shared Dispatch's pool with every
# other test, which held that pool's threads, and a concurrent mutant whose rule takes 0.25 s
# alone waited 12 s a run for a thread (the kills' 269 s alone became 862 s with nothing
# else on the machine, 1,252 s in CI). Apart, the package's tests took 346 s and 515 s of
# processor time where together they took 530 s and 698 s.
RUN_SPLIT_BUNDLE = { export NO_COLOR=1; $(1); xctest=$$?; \
	$(1) --testing-library swift-testing --filter '$(2)' >$(3) 2>&1 & split=$$!; \
	$(1) --testing-library swift-testing --skip '$(2)'; testing=$$?; \
	wait $$split; apart=$$?; echo "── $(2), in a process of its own ──"; cat $(3); \
	[ $$xctest -eq 0 ] && [ $$testing -eq 0 ] && [ $$apart -eq 0 ]; }
# The package's test that runs in a process of its own (see RUN_SPLIT_BUNDLE).
KILL_TEST := everyMutantIsKilledByItsRuleInEveryRun
# Prefix for a recipe line: a busy loop on every core until the line's shell exits.
BUSY_CORES := pids=""; for i in $$(seq $$(nproc)); do (while :; do :; done) & pids="$$pids $$!"; done; trap 'kill $$pids' EXIT;

.DELETE_ON_ERROR:
.PHONY: lint format tsan tsan-gate tsan-build tsan-build-package docs help build test test-conformance test-mutants nightly nightly-deps test-nightly-tier nightly-mutants nightly-mutants-loaded nightly-loaded bench-instructions test-package test-package-built test-third-party test-example test-mutator python-deps release conformance conformance-mutants conformance-mutants-loaded conformance-kill-matrix conformance-loaded matrix stress stress-nightly stress-soak stress-trend dashboard mutate mutate-full rules clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-20s %s\n", $$1, $$2}'

build: ## Build everything, tests included (debug)
	$(SWIFT) build --build-tests

# `make test`'s parts: this package's build (and its documentation) with the mutator's build
# beside it (swift-syntax: the two together keep both cores busy where one alone leaves one
# idle while it plans or links), then this package's tests (in two processes, see
# RUN_SPLIT_BUNDLE) with the other packages' beside them, one after the other. Each rule is
# built to judge on a loaded machine, which this makes of it; three lanes at once made one too
# loaded for what must wait for quiet moments (the soak's heap samples, the example's stacks
# of a deadlocked worker, both failed in CI's preview) and saved 60 s.
TEST_FIRST  := python-deps build docs
TEST_BESIDE := test-mutator
TEST_LANE   := test-example
# Runs the parts $(1) in turn, each with its wall and processor time: where CI's time goes is
# read from its log. The processor time beside the wall time says which parts wait and which compute.
TIMED_PARTS = for part in $(1); do TIMEFORMAT="make test: '$$part' took %0R s (processor %0U s user, %0S s system)"; \
	time $(MAKE) --no-print-directory $$part || exit $$?; done
# Runs the parts $(1) with the parts $(2) beside them in a lane of their own, whose output is
# printed after; on a failure of $(1), runs $(3) at the end, where a CI log cut to its tail
# still shows it. Fails when either lane failed.
BESIDE = lane=$$(mktemp); started=$$SECONDS; \
	( $(call TIMED_PARTS,$(2)) ) >$$lane 2>&1 & other=$$!; \
	status=0; ( $(call TIMED_PARTS,$(1)) ) || status=$$?; \
	other_status=0; wait $$other || other_status=$$?; \
	echo "── $(2), run beside $(1) ──"; cat $$lane; rm -f $$lane; \
	echo "make test: $(1) beside $(2) took $$((SECONDS - started)) s"; \
	if [ $$status -ne 0 ]; then $(3); exit $$status; fi; exit $$other_status
# The failing tests in the test log $(1), printed again at the end, where a CI log cut to its tail still shows them.
FAILING = echo "── failing tests ($(1)) ──"; grep -E -A3 '✘ .*(recorded an issue|failed)' $(1) | grep -v 'known issue' | tail -60
test: ## The per-change gate: build, every test of the gate's tier, the reference catalogue once and every mutant caught once (release)
	@$(call BESIDE,$(TEST_FIRST),$(TEST_BESIDE),true)
	@$(call BESIDE,test-package-built,$(TEST_LANE),$(call FAILING,.build/test.log))
	@$(call TIMED_PARTS,release test-conformance test-mutants)

# The gate's release checks: the reference subjects' whole catalogue once, as `make
# conformance` runs it, and every bundled mutant caught by its rule once, each in a worker;
# ten runs of each mutant (and thirty with every core busy) are `make nightly`'s.
test-conformance: release
	$(CONFORMANCE) run --quiet --report-dir $(REPORTS)/gate
test-mutants: release
	$(CONFORMANCE) mutants --runs 1 --quiet --report-dir $(REPORTS)/mutants-gate

# The depth, nightly and before an issue that touches rules, mutants, the harness or the
# library is resolved: every test of both tiers (SCHEDULERS_TIER=nightly: the tests that judge
# time or races, repeat a verdict, or need Chromium or callgrind), every test under
# ThreadSanitizer, the mutants 10/10 quiet and 30/30 with every core busy, twenty loaded runs of
# the catalogue, the mutation analysis and the soak. Each step runs whatever the others did;
# the table at the end gives each one's time and result, and any failure fails the target.
NIGHTLY_STEPS := nightly-deps test-nightly-tier tsan nightly-mutants nightly-mutants-loaded nightly-loaded mutate stress-soak
nightly: ## The depth: both tiers of tests, ThreadSanitizer over all, mutants 10/10 and 30/30 loaded, 20 loaded runs, mutate, the soak; ends with a table
	@export SCHEDULERS_TIER=nightly; table=$$(mktemp); failed=0; for step in $(NIGHTLY_STEPS); do started=$$SECONDS; \
		if $(MAKE) --no-print-directory $$step; then result=passed; else result=FAILED; failed=$$((failed+1)); fi; \
		printf '| %s | %s s | %s |\n' $$step $$((SECONDS - started)) $$result >>$$table; done; \
	echo; echo '| step | time | result |'; echo '| --- | --: | --- |'; cat $$table; rm -f $$table; \
	echo "make nightly: $$failed step(s) failed"; test $$failed -eq 0

# The nightly steps with their counts fixed, whatever RUNS the caller set.
nightly-mutants:
	@$(MAKE) --no-print-directory conformance-mutants MUTANT_RUNS=10
nightly-mutants-loaded:
	@$(MAKE) --no-print-directory conformance-mutants-loaded MUTANT_RUNS=30
nightly-loaded:
	@$(MAKE) --no-print-directory conformance-loaded RUNS=20

# jemalloc is optional elsewhere, but the soak reads the heap from its statistics: a nightly
# on a fresh machine failed its soak for want of it.
nightly-deps: # what only the nightly tier needs: headless Chromium (the documentation's links, the dashboard), jemalloc (the soak)
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium; }
	@dpkg -s libjemalloc-dev >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq libjemalloc-dev; }

# Both tiers of this package's tests, and the third-party matrix's and the example's.
test-nightly-tier: build docs
	@export SCHEDULERS_TIER=nightly; $(call RUN_TESTS,$(call RUN_SPLIT_BUNDLE,.build/debug/SchedulerBehaviourPackageTests.xctest,$(KILL_TEST),.build/test-kills.log),.build/test-nightly.log)
	@export SCHEDULERS_TIER=nightly; $(MAKE) --no-print-directory test-third-party test-example

test-package: build test-package-built ## Run this package's tests

# This package's tests from their bundle, already built: the third-party package and the
# example build in this package's folder meanwhile (see DEBUG_SCRATCH).
test-package-built:
	@$(call RUN_TESTS,$(call RUN_SPLIT_BUNDLE,.build/debug/SchedulerBehaviourPackageTests.xctest,$(KILL_TEST),.build/test-kills.log),.build/test.log)

test-mutator: ## Run the source mutator's tests (its own package, on swift-syntax)
	cd $(MUTATOR) && $(SWIFT) build --build-tests
	@cd $(MUTATOR) && $(call RUN_TESTS,$(SWIFT) test --skip-build,.build/test.log)

# The third-party package and the example build for their tests in this package's folder:
# both depend on this package by path, and in one folder SwiftPM compiles this package's
# modules (and the dependencies they share) once for all three. In folders of their own, the
# third-party build compiled them again (half its 671 compile steps), and the example's build
# took 83-102 s against 15 s. Their tests run from their bundles, as this package's do:
# `swift test` would hold the folder while they run.
DEBUG_SCRATCH := $(CURDIR)/.build
test-third-party: ## Run the third-party adapters' tests (their own package)
	cd $(THIRD_PARTY) && $(SWIFT) build --build-tests --scratch-path $(DEBUG_SCRATCH)
	@cd $(THIRD_PARTY) && $(call RUN_TESTS,$(call RUN_BUNDLE,$(DEBUG_SCRATCH)/debug/ThirdPartyMatrixPackageTests.xctest),$(DEBUG_SCRATCH)/test-third-party.log)

EXAMPLE       := Examples/ThirdPartyScheduler
EXAMPLE_BUILD := $(DEBUG_SCRATCH)
test-example: ## Run the example package's tests, then its own conformance and stress tools
	cd $(EXAMPLE) && $(SWIFT) build --build-tests --scratch-path $(EXAMPLE_BUILD)
	@cd $(EXAMPLE) && $(call RUN_TESTS,$(call RUN_BUNDLE,$(EXAMPLE_BUILD)/debug/ThirdPartySchedulerPackageTests.xctest),$(EXAMPLE_BUILD)/test-example.log)
	$(EXAMPLE_BUILD)/debug/worker-thread-conformance run --quiet --report-dir $(REPORTS)/example
	$(EXAMPLE_BUILD)/debug/worker-thread-stress run --duration 0.2 --report-dir $(REPORTS)/example/stress
	python3 Reports/schema/validate.py Reports/schema/conformance.schema.json $(REPORTS)/example/conformance.json
	python3 Reports/schema/validate.py Reports/schema/stress.schema.json $(REPORTS)/example/stress/latest.json
	# The command plugins, as an adopter runs them (debug: the tools were just built so).
	cd $(EXAMPLE) && $(SWIFT) package --scratch-path $(EXAMPLE_BUILD) --allow-writing-to-package-directory \
		conformance --configuration debug --rule ORD-1,CAN-1 --quiet
	cd $(EXAMPLE) && $(SWIFT) package --scratch-path $(EXAMPLE_BUILD) --allow-writing-to-package-directory \
		stress --configuration debug --scenario fan-in --duration 0.2
	python3 Reports/schema/validate.py Reports/schema/conformance.schema.json $(EXAMPLE)/Reports/conformance/conformance.json
	python3 Reports/schema/validate.py Reports/schema/stress.schema.json $(EXAMPLE)/Reports/stress/latest.json

python-deps: # the report schema is checked with Python's jsonschema
	@python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema

# ThreadSanitizer: its own build folder, and `Lock` on pthread mutexes the sanitizer sees. The
# third-party package builds in the same folder, so this package's modules are compiled once
# for both (its sanitized build of them cost 235 s of processor time), and its tests run from
# their bundle: `swift test` would wait for this package's, which holds the folder.
TSAN_SCRATCH := $(CURDIR)/.build-tsan
TSAN_BUILD   := --sanitize=thread --scratch-path $(TSAN_SCRATCH) -Xswiftc -DSCHEDULERS_TSAN
TSAN_REPORTS := $(REPORTS)/tsan
# Every process (the tests and the commands they start) writes its reports to a file of its
# own, so a report in a child whose output a test does not show still fails the run.
TSAN_RUNTIME := suppressions=$(CURDIR)/Tests/ThreadSanitizer.supp log_path=$(abspath $(TSAN_REPORTS))/report halt_on_error=0
# Swift's crash backtracer is off: the tests crash workers on purpose, and the sanitizer's
# runtime dies in its own fork handling when the backtracer is spawned from a crashing
# process ("CHECK failed … ForkChildAfter"), which would leave a log that is not a report.

# The sanitizer's verdict on a run whose tests' output went to the terminal and whose exit
# status is $$status: fails on any report in $(TSAN_REPORTS), or on a failed test.
TSAN_VERDICT = reports=$$(ls $(TSAN_REPORTS) | wc -l); \
	if [ $$reports -gt 0 ]; then cat $(TSAN_REPORTS)/*; echo "make tsan: ThreadSanitizer reports from $$reports process(es), kept in $(TSAN_REPORTS)"; exit 1; fi; \
	if [ $$status -ne 0 ]; then echo "make tsan: the tests failed (exit $$status)"; exit $$status; fi; \
	echo "make tsan: every test passed with no ThreadSanitizer report"
TSAN_ENVIRONMENT = rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS); \
	export TSAN_OPTIONS="$(TSAN_RUNTIME)" SWIFT_BACKTRACE=enable=no $(if $(TSAN_CANARY),SCHEDULERS_TSAN_CANARY=1)

tsan: tsan-build docs ## Build and run this package's and (beside them) the third-party adapters' tests under ThreadSanitizer; fails on any report outside Tests/ThreadSanitizer.supp
	@$(TSAN_ENVIRONMENT); status=0; other=$$(mktemp); \
	( TIMEFORMAT="make tsan: the third-party adapters' tests (beside) took %0R s (processor %0U s user, %0S s system)"; \
	  time (cd $(THIRD_PARTY) && $(call RUN_BUNDLE,$(TSAN_SCRATCH)/debug/ThirdPartyMatrixPackageTests.xctest)) ) \
	  >$$other 2>&1 & pid=$$!; \
	TIMEFORMAT="make tsan: this package's tests took %0R s (processor %0U s user, %0S s system)"; \
	time $(SWIFT) test --skip-build $(TSAN_BUILD) || status=$$?; \
	wait $$pid || status=$$?; cat $$other; rm -f $$other; \
	$(TSAN_VERDICT)

# The gate's share of the sanitizer: the tests of the code adopters run, the reference
# library (SchedulersTests) and the harness's supervisor and workers (the conformance and
# stress commands' tests, the crash diagnosis, the worker's core gate), and the proof that a
# race is reported. `make tsan`, in the nightly tier, runs every test so.
TSAN_GATE_TESTS := ^SchedulersTests\.|CommandTests|CrashDiagnosisTests|CoreGateTests|ThreadSanitizerTests
tsan-gate: tsan-build-package ## The gate's sanitizer run: the reference library's and the harness's tests under ThreadSanitizer
	@$(TSAN_ENVIRONMENT); status=0; \
	TIMEFORMAT="make tsan-gate: the library's and the harness's tests took %0R s (processor %0U s user, %0S s system)"; \
	time $(SWIFT) test --skip-build $(TSAN_BUILD) --filter '$(TSAN_GATE_TESTS)' || status=$$?; \
	$(TSAN_VERDICT)

tsan-build: tsan-build-package # the sanitizer's builds alone, this package's and the third-party package's
	cd $(THIRD_PARTY) && $(SWIFT) build --build-tests $(TSAN_BUILD)
tsan-build-package: # this package's sanitizer build alone (the gate's)
	$(SWIFT) build --build-tests $(TSAN_BUILD)

# The documentation: DocC for the four modules an adopter uses, combined, as static HTML.
# In the test build's folder: DocC's symbol graphs come from the same debug build the tests
# use (11 s after `swift build --build-tests`, 44 s in a folder of its own). Built again only
# when a source or an article changed: `make tsan` needs the site too.
DOCS := .build/docs
DOCS_SOURCES := Package.swift $(shell find Sources Conformance/SchedulerConformance Conformance/Harness \( -name '*.swift' -o -name '*.md' \))
docs: $(DOCS)/index.html ## Build the documentation (Schedulers, SchedulerVocabulary, SchedulerConformance, SchedulerHarness) as static HTML in .build/docs; fails on any DocC warning

$(DOCS)/index.html: $(DOCS_SOURCES)
	@mkdir -p $(dir $(DOCS)) && rm -rf $(DOCS)
	$(SWIFT) package --allow-writing-to-directory $(DOCS) generate-documentation \
		--target Schedulers --target SchedulerVocabulary --target SchedulerConformance --target SchedulerHarness \
		--enable-experimental-combined-documentation --transform-for-static-hosting \
		--output-path $(DOCS) --warnings-as-errors
	@# The plugin can report an error of DocC's and still exit 0: what counts is the site.
	@test -f $(DOCS)/index.html -a -d $(DOCS)/data/documentation || { echo "make docs: no documentation was written to $(DOCS)"; exit 1; }

release: # the commands, optimised (SwiftPM rebuilds only what changed)
	$(SWIFT) build -c release --product conformance
	$(SWIFT) build -c release --product stress

conformance: release ## Check every reference scheduler; writes Reports/conformance.{json,junit.xml}
	$(CONFORMANCE) run --report-dir $(REPORTS) $(ARGS)

conformance-mutants: release ## Run each mutant's rule 10 times (or RUNS); fails unless every run catches it
	$(CONFORMANCE) mutants --runs $(MUTANT_RUNS) --report-dir $(REPORTS)/mutants $(ARGS)

conformance-mutants-loaded: release ## As conformance-mutants, while every core is kept busy: finds rules that catch their mutant only on a quiet machine
	@$(BUSY_CORES) $(CONFORMANCE) mutants --runs $(MUTANT_RUNS) --quiet --report-dir $(REPORTS)/mutants-loaded $(ARGS)

conformance-kill-matrix: release ## Run the whole catalogue once against every mutant and print which rules catch each
	$(CONFORMANCE) mutants --all-rules --quiet --report-dir $(REPORTS)/kill-matrix $(ARGS)

conformance-loaded: release ## RUNS runs of the catalogue (LOADED_JOBS at once) while every core is kept busy; each run's report in Reports/loaded/run-N
	@$(BUSY_CORES) rm -rf $(REPORTS)/loaded; mkdir -p $(REPORTS)/loaded; \
	seq $(RUNS) | xargs -P $(LOADED_JOBS) -I{} sh -c 'if $(CONFORMANCE) run --quiet --report-dir $(REPORTS)/loaded/run-{} \
		>$(REPORTS)/loaded/run-{}.txt 2>&1; then verdict=passed; else verdict=FAILED; touch $(REPORTS)/loaded/run-{}.failed; fi; \
		echo "run {}: $$verdict: $$(grep -o "[0-9]* inconclusive" $(REPORTS)/loaded/run-{}.txt | tail -1) ($(REPORTS)/loaded/run-{}.txt)"'; \
	failed=$$(ls $(REPORTS)/loaded | grep -c '\.failed$$'); echo "$$(($(RUNS)-failed)) passed, $$failed failed"; test $$failed -eq 0

bench-instructions: ## Count the hot paths' instructions and allocations per operation under callgrind (release); exit 10 on a regression over 3% against Stress/instruction-baselines.json
	$(SWIFT) build -c release --product stress
	$(STRESS) instructions --report-dir $(REPORTS) $(ARGS)

stress: release ## Short stress run (under 3 minutes) over every scenario and reference subject
	$(STRESS) run --duration 1 --report-dir $(REPORTS)/stress $(if $(SUBJECTS),--subject $(SUBJECTS)) $(ARGS)

stress-nightly: release ## The nightly job: BUDGET (e.g. 30m, 2h) spread over every scenario × subject
	$(STRESS) run --budget $(BUDGET) --report-dir $(REPORTS)/stress $(if $(SUBJECTS),--subject $(SUBJECTS)) $(ARGS)

stress-soak: release ## The soak: SOAK_BUDGET (default 3m, at least 10^8 actions) of mixed work through every reference scheduler, the heap sampled when quiet; fails on a leak
	$(STRESS) run --scenario soak --budget $(SOAK_BUDGET) --minimum-operations $(SOAK_ACTIONS) --report-dir $(REPORTS)/soak $(if $(SUBJECTS),--subject $(SUBJECTS)) $(ARGS)

dashboard: release ## Write Reports/dashboard/index.html from the reports present (conformance, stress and the nightly history)
	$(CONFORMANCE) dashboard --output $(REPORTS)/dashboard/index.html $(ARGS)

stress-trend: release ## Judge Reports/stress/latest.json against the last 30 nightly reports there (rank test); exit 10 on a regression
	$(STRESS) compare --history $(REPORTS)/stress $(ARGS)

# The whole matrix, every deviation explained, is a documentation article; the README has its headline.
MATRIX_ARTICLE := Conformance/SchedulerConformance/SchedulerConformance.docc/ThirdPartyMatrix.md

matrix: ## Check and stress the third-party schedulers beside the reference ones; refresh the README's tables
	cd $(THIRD_PARTY) && $(SWIFT) build -c release
	$(MATRIX_CONFORMANCE) run --subject all --quiet --report-dir $(REPORTS)/matrix $(ARGS)
	$(MATRIX_CONFORMANCE) matrix-markdown $(REPORTS)/matrix/conformance.json --into $(MATRIX_ARTICLE)
	$(MATRIX_CONFORMANCE) matrix-markdown $(REPORTS)/matrix/conformance.json --headline --into README.md
	$(MATRIX_STRESS) run --duration 1 --subject all --report-dir $(REPORTS)/matrix/stress
	$(MATRIX_STRESS) table $(REPORTS)/matrix/stress/latest.json --into README.md
	$(MATRIX_STRESS) table $(REPORTS)/matrix/stress/latest.json --into $(MATRIX_ARTICLE)

MUTATE := .build/debug/conformance mutate --target Schedulers --equivalents Conformance/mutation-equivalents.json --minimum-score 95 --report-dir $(REPORTS)/mutation
# The command only orchestrates (the mutants run in a release build of a mutated copy), so a
# debug build of it is enough, and quicker from a clean clone.
mutate: ## Mutation analysis of Sources/Schedulers: every mutant the rules miss, and the score (fails under 95 %); declared equivalents are trusted
	$(SWIFT) build --product conformance
	$(MUTATE) --trust-equivalents $(ARGS)

mutate-full: ## As mutate, and the mutants declared equivalent run too, so a declaration a stronger rule refutes is reported (nightly)
	$(SWIFT) build --product conformance
	$(MUTATE) $(ARGS)

# The rule reference is generated from the catalogue into the one place it is read from (the
# documentation, which GitHub renders as it is); a test fails while it is stale.
RULE_REFERENCE := Conformance/SchedulerConformance/SchedulerConformance.docc/RuleReference.md
rules: release ## Regenerate the rule reference (the documentation's RuleReference.md) from the catalogue
	$(CONFORMANCE) list-rules --markdown > $(RULE_REFERENCE).tmp && mv $(RULE_REFERENCE).tmp $(RULE_REFERENCE)

clean: ## Remove build products and generated reports
	rm -rf .build $(THIRD_PARTY)/.build Examples/ThirdPartyScheduler/.build $(REPORTS)/*.json $(REPORTS)/*.xml $(REPORTS)/mutants $(REPORTS)/kill-matrix $(REPORTS)/loaded $(REPORTS)/stress $(REPORTS)/matrix $(REPORTS)/example $(REPORTS)/mutation .build-mutate $(MUTATOR)/.build Examples/ThirdPartyScheduler/.build-mutate

# Every Swift source of the three packages, without their build folders.
LINT_PATHS := Package.swift Sources Plugins/Shared Plugins/ConformancePlugin/ConformancePlugin.swift Plugins/StressPlugin/StressPlugin.swift Conformance/SchedulerConformance Conformance/SchedulerConformanceTesting Conformance/Mutants \
	Conformance/Commands Conformance/ConformanceCLI Conformance/Harness Conformance/ThirdParty/Package.swift Conformance/ThirdParty/Sources \
	Conformance/Mutator/Package.swift Conformance/Mutator/Sources Conformance/Mutator/Tests \
	Conformance/ThirdParty/Tests Stress Tests Examples/ThirdPartyScheduler/Package.swift Examples/ThirdPartyScheduler/Sources \
	Examples/ThirdPartyScheduler/Tests

lint: ## Check every Swift file against .swift-format, and that none has a line over 120 columns or over 300 lines
	$(SWIFT) format lint --strict --recursive --parallel $(LINT_PATHS)
	@python3 Tests/check_shape.py $(LINT_PATHS)

format: ## Rewrite every Swift file as .swift-format says
	$(SWIFT) format --in-place --recursive --parallel $(LINT_PATHS)
