"""flinkspec's conformance suite: strategies, invariants and pytest properties per area.

Run it against any implementation: ``pytest --pyargs properties --impl cmd:./my-engine``.
"""
