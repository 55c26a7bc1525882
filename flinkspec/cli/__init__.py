"""flinkspec's commands: one module per command (``flinkspec <command>``), the options they share in
:mod:`flinkspec.cli.options` and the parser in :mod:`flinkspec.cli.main`."""
