"""`make load` (bench/load_test.py, the command line) in parts: config, plan, probes, steps, viewers, editor, run, report."""
