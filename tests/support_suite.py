"""The two-case native suite the matching tests share: a case with an id, and one without.

`refund` (id `T-refund`) begins with "I was charged twice"; `greeting` has no id and begins
with "Hello". The tests that pair conversations with cases (by id, case field, inputs, or not
at all) read it from here, so they agree on what the suite holds.
"""

SUPPORT_SUITE = """\
chatassert: 1
name: support
cases:
  - name: refund
    id: T-refund
    turns:
      - input: I was charged twice
        assertions: [{type: contains, value: refund}]
  - name: greeting
    turns:
      - input: Hello
        assertions: [{type: contains, value: hello}]
"""
