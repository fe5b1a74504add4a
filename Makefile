# The entry point: `make help` lists the targets.
SWIFT      ?= swift
CONFIG     ?= release

.PHONY: help build test conformance clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

build: ## Build everything (debug)
	$(SWIFT) build --build-tests

test: ## Build and run every test
	$(SWIFT) test

conformance: ## Run the conformance suite on every reference scheduler (writes Reports/)
	$(SWIFT) test --filter SchedulersTests

clean: ## Remove build products
	rm -rf .build
