"""chatassert plugins of a support desk: checks, a judge, a log reader and a report format.

Installed, the package declares them as entry points (see its pyproject.toml), and
chatassert loads each group the first time a run names something no built-in has:

- `chatassert.checks`, `support-desk`: the `checks` module, whose import registers
  `quotes_order_id` (PromptKit: `mentions_order_id`) and `message_quotes_order_id`;
- `chatassert.judges`, `house-rules`: `judges.house_rules`, a judge that grades a rubric by
  the phrases it quotes, on this machine;
- `chatassert.readers`, `support-desk`: `readers.SUPPORT_DESK`, the desk's ticket export;
- `chatassert.reports`, `tally-md`: `reports.MARKDOWN_TALLY`, a Markdown table of each
  case's outcomes (`-o report.md`).

Not installed, `--plugin chatassert_support_desk.plugin` (with `src/` on `PYTHONPATH`)
registers all of them. Importing this package itself registers nothing.
"""

__version__ = "0.1.0"
