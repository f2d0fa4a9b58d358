# Memory at cluster scale (docs/performance.md, "Memory at cluster scale"): peak RSS and seconds
# of `restartkit validate` on generated inputs of up to 2 GB (kept under
# ~/.cache/restartkit/bench-memory, never in the repository) and the bad inputs that must end in
# bounded memory. Not part of `make test`: generating and reading the 1-2 GB inputs takes
# minutes. BASELINE=path/to/restartkit measures a second binary on the inputs it can hold.
#   make bench-memory [BENCH_MEMORY_ARGS=--quick]
.PHONY: bench-memory

bench-memory:
	$(CARGO) build --locked --release -p restartkit-cli
	python3 tools/bench_memory.py --cli $(RK_RELEASE) $(if $(BASELINE),--baseline $(BASELINE)) $(BENCH_MEMORY_ARGS)

# Every input layout (tools/bench_layouts.py, issue 44 item 0): compact and indented JSON Lists,
# one item per line, a YAML stream, 1 to 128 MB; fails on a super-linear step or a missed goal.
#   make bench-layouts [BENCH_LAYOUTS_ARGS=--sizes=1,2,4,8]
.PHONY: bench-layouts
bench-layouts:
	$(CARGO) build --locked --release -p restartkit-cli
	python3 tools/bench_layouts.py --cli $(RK_RELEASE) $(BENCH_LAYOUTS_ARGS)
