"""A single-file HTML report: inline CSS and script, no external assets, every user text escaped.

The page has a static part (run metadata, totals, pass rates per assertion and per case, the
unreadable log lines), rendered here, and the list of every checked case, which an inline
script renders from a JSON document embedded in the page: filters by status, assertion, case
and tag, sorting, collapsible result trees and transcript excerpts with the failing span
marked. The script sets text only through `textContent`, so no text of a log can become markup,
and the JSON is written with `<`, `>` and `&` escaped, so no text can end the script element.

Identical results are listed once: cases that did not pass with the same suite, case, status
and the same nodes that did not pass (each node's status, name, message, location, pointer and
reason; not the evidence's text, which differs from one conversation to the next) make one
entry with their count and the first `EXAMPLES` of them as examples, so twenty thousand
identical failures stay a page of a few kilobytes. Every count is written the one way the
other reports write it (`chatassert.reporting._words`).

Each case's data is rendered when it is produced (in a worker, with `--jobs`) by `html_case`,
and `HtmlWriter` spools it to a temporary file, so a run of any size keeps a bounded memory:
a passing case costs some fifty bytes of the page, a failing one its result tree and excerpt,
and a failure identical to `EXAMPLES` earlier ones only a count.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import IO, TYPE_CHECKING, Any

from chatassert._result import Result, Status, marked
from chatassert.reporting._junit import INVALID_XML, relative_to_cwd
from chatassert.reporting._summary import assertion_statuses, cost_text, pass_rate
from chatassert.reporting._words import counted, number, plural

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from chatassert._rows import Row
    from chatassert.reporting._formats import ReportOptions, Writable
    from chatassert.reporting._summary import Outcome, Summary

__all__ = ["EXAMPLES", "HTML", "HtmlWriter", "html_case", "render_html", "write_html"]

EXAMPLES = 3
"""How many cases of a group of identical results the page lists (with their sources,
usage and transcript excerpts); the others are counted."""
GROUPS = 100_000
"""How many distinct groups a page's writer tells apart; a result unlike all of them once
that many are known is listed on its own (so the writer's memory stays bounded)."""

_CODE = {"passed": "p", "failed": "f", "error": "e", "skipped": "s"}
_USAGE = (("tokens", "total_tokens"), ("cost", "cost"), ("ms", "latency_ms"))
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")
_KEYED = re.compile(r',"([0-9a-f]{16})"\]\Z')
_WORDS = ("case", "check", "token")
"""The words the page's script counts, with their plurals from `plural` (one rule)."""


def _script_safe(text: str) -> str:
    """JSON text that can sit inside `<script>`: `<`, `>`, `&` (and the two line separators)
    as `\\uXXXX` escapes, which read back as the same characters."""
    return _SCRIPT_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _dump(value: Any) -> str:
    """Compact JSON, non-ASCII kept, with the characters no page can hold replaced."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return INVALID_XML.sub("\ufffd", text)


def _node(result: Result, root: str | None = None, above: str | None = None) -> dict[str, Any]:
    """One node of a result tree as the page's script reads it (short keys: the page of a
    large run holds thousands of them).

    A node is named as the spec wrote it (`sn`, when that is not the native name `n`), with
    its place in the spec (`ps`: `Result.spec_place` relative to the case's place `root`, left
    out where the node above says it already).
    """
    node: dict[str, Any] = {"s": _CODE[result.status.value], "n": result.name, "r": result.reason}
    if result.spec_name is not None and result.spec_name != result.name:
        node["sn"] = result.spec_name
    place = result.spec_place(root, above)
    if place is not None:
        node["ps"] = place
    if result.message:
        node["m"] = result.message
    if result.location:
        node["at"] = result.location
    if result.score is not None:
        node["sc"] = result.score
    if result.pointer is not None:
        node["p"] = result.pointer
        if result.span is not None and result.excerpt is not None:
            # three pieces: before, the span, after (the `…` of a cut included)
            text = marked(result.excerpt, result.span, "\0", "\0", lambda s: s.replace("\0", ""))
            node["mk"] = text.split("\0")
            node["sp"] = list(result.span)
    if result.children:
        here = result.spec_path or above
        node["c"] = [_node(child, root, here) for child in result.children]
    return node


def _usage(subject: object) -> dict[str, float | int] | None:
    """Tokens, cost and latency of a conversation or turn, where its log records them."""
    from chatassert._models import Conversation, Turn

    if not isinstance(subject, Conversation | Turn):
        return None
    from chatassert._usage import usage_total

    out: dict[str, float | int] = {}
    for short, key in _USAGE:
        total = usage_total(subject, key)
        if total.parts:
            out[short] = total.value
    return out or None


def _same(node: Mapping[str, Any]) -> list[Any]:
    """What two results share when they are the same result: each node that did not pass, by
    its status, names, message, places, pointer and reason (not its evidence's text)."""
    return [
        node["s"],
        node["n"],
        node.get("m"),
        node.get("sn"),
        node.get("ps"),
        node.get("at"),
        node.get("p"),
        node["r"],
        [_same(child) for child in node.get("c", ()) if child["s"] != "p"],
    ]


def html_case(outcome: Outcome, subject: object = None) -> str:
    """Render what the HTML report shows of one outcome, as a JSON array (not yet escaped for
    the page): `[source, usage, detail, matched]`, and for a case that did not pass a fifth
    item, the key its identical results share (sixteen hex digits: suite, case, status and the
    nodes that did not pass; `HtmlWriter` groups by it).

    `detail` (the result tree, the reason and the transcript excerpt) is there only for a case
    that did not pass; `matched` is why the subject was checked against the case
    (`Outcome.matched_by`), or `[matched_by, match_note]` when the pairing has a note.

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.reporting import Outcome
        >>> html_case(Outcome("s", "c", Contains("a").check("a"), "log.jsonl:3", matched_by="id"))
        '["log.jsonl:3",null,null,"id"]'
        >>> one, two = (
        ...     html_case(Outcome("s", "c", Contains("a").check(text), source))
        ...     for text, source in (("b", "log.jsonl:4"), ("c", "log.jsonl:5"))
        ... )
        >>> one[-19:-1] == two[-19:-1]  # the same failure, in two conversations
        True
    """
    result = outcome.result
    detail: dict[str, Any] | None = None
    key = None
    if result.status is not Status.PASSED:
        tree = _node(result, result.spec_path, result.spec_path)
        detail = {"tree": tree}
        if outcome.excerpt:
            detail["excerpt"] = outcome.excerpt
        if outcome.subject_id is not None:
            detail["id"] = outcome.subject_id
        if outcome.cost is not None:
            detail["cost"] = cost_text(outcome.cost)
        # the texts as they are (`_dump` would make two control characters one U+FFFD)
        same = json.dumps([outcome.suite, outcome.case, _same(tree)], ensure_ascii=False)
        key = hashlib.blake2b(same.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    source = relative_to_cwd(outcome.source) if outcome.source else ""
    matched: str | list[str | None] | None = outcome.matched_by
    if outcome.match_note:
        matched = [outcome.matched_by, outcome.match_note]
    if key is None:
        return _dump([source, _usage(subject), detail, matched])
    return _dump([source, _usage(subject), detail, matched, key])


class HtmlWriter:
    """The cases of an HTML report, spooled to a temporary file as they come.

    Suite, case and assertion names are stored once, each case refers to them by number. Cases
    that did not pass are grouped by the key `html_case` gives them: the first `EXAMPLES` of a
    group are spooled, the others only counted, so the page of many identical failures stays
    small whatever order the rows come in (`--jobs`, engines). Memory holds one key and one
    count per group, for at most `GROUPS` groups.
    """

    def __init__(self, tags: Mapping[tuple[str, str], Sequence[str]] | None = None) -> None:
        self._spool: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._rows = 0
        self._cases: dict[tuple[str, str], int] = {}
        self._labels: dict[str, int] = {}
        self._tags = dict(tags or {})
        self._unmatched: IO[str] | None = None
        self._groups: dict[str, int] = {}
        self._sizes: list[int] = []
        self.unmatched = 0
        """How many conversations without a matching case were spooled."""

    def add(
        self,
        suite: str,
        case: str,
        status: str,
        assertions: Iterable[tuple[str, str]],
        seconds: float,
        data: str,
    ) -> None:
        """Spool one case outcome: its counts, and `data` as `html_case` rendered it (or
        only count it, when `EXAMPLES` identical results are already spooled)."""
        group = ""
        keyed = _KEYED.search(data) if status != "passed" else None
        if keyed is not None:
            data = data[: keyed.start()] + "]"
            groups = self._groups
            index = groups.get(keyed.group(1))
            if index is None and len(groups) < GROUPS:
                index = groups[keyed.group(1)] = len(self._sizes)
                self._sizes.append(0)
            if index is not None:
                self._sizes[index] += 1
                if self._sizes[index] > EXAMPLES:
                    return
                group = f",{index}"
        key = (suite, case)
        index = self._cases.get(key)
        if index is None:
            index = self._cases[key] = len(self._cases)
        labels = self._labels
        pairs = []
        for label, leaf in assertions:
            number = labels.get(label)
            if number is None:
                number = labels[label] = len(labels)
            pairs.append(f'[{number},"{_CODE.get(leaf, "e")}"]')
        self._spool.write(
            f'{"," if self._rows else ""}[{index},"{_CODE.get(status, "e")}",'
            f"{round(seconds, 6)},[{','.join(pairs)}],{data}{group}]\n"
        )
        self._rows += 1

    def add_outcome(self, outcome: Outcome, subject: object = None) -> None:
        """Spool one outcome whole (rendered here)."""
        self.add(
            outcome.suite,
            outcome.case,
            outcome.result.status.value,
            [(label, s.value) for label, s in assertion_statuses(outcome.result)],
            outcome.seconds,
            html_case(outcome, subject),
        )

    def add_unmatched(self, where: str, suite: str, why: str | None = None) -> None:
        """Spool a conversation that no case of `suite` matches, with `why` when it is known
        (its id, the suite's case ids, the closest one)."""
        if self._unmatched is None:
            self._unmatched = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        comma = "," if self.unmatched else ""
        item = (
            [relative_to_cwd(where), suite] if why is None else [relative_to_cwd(where), suite, why]
        )
        self._unmatched.write(f"{comma}{_dump(item)}\n")
        self.unmatched += 1

    def write_data(self, out: SupportsWrite[str], meta: Mapping[str, Any]) -> None:
        """Write the page's JSON document (escaped for a `<script>` element) and release the
        spools.

        Beside `meta`, `labels` and `cases` it holds `rows` (`[case, status, seconds,
        assertions, [source, usage, detail, matched], group]`, the group only for a case that
        did not pass), `unmatched` (`[source, suite]`, and why when it is known), `groups`
        (how many cases each group holds) and `words` (each word the script counts, singular
        and plural).
        """
        cases = [
            [suite, case, list(self._tags.get((suite, case), ()))] for (suite, case) in self._cases
        ]
        words = {word: [plural(1, word), plural(2, word)] for word in _WORDS}
        head = {"meta": dict(meta), "labels": list(self._labels), "cases": cases, "words": words}
        out.write(_script_safe(_dump(head)[:-1]) + ',"rows":[\n')
        _copy(self._spool, out)
        out.write('],"unmatched":[\n')
        if self._unmatched is not None:
            _copy(self._unmatched, out)
        out.write(f'],"groups":{_dump(self._sizes)}}}')

    def close(self) -> None:
        """Release the spools."""
        self._spool.close()
        if self._unmatched is not None:
            self._unmatched.close()


def _copy(spool: IO[str], out: SupportsWrite[str]) -> None:
    spool.seek(0)
    while block := spool.read(1 << 16):
        out.write(_script_safe(block))
    spool.close()


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:78rem;
color:#1d2330;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde}
.totals span{display:inline-block;margin-right:1rem;padding:.2rem .6rem;border-radius:4px}
.passed{background:#e3f6e8}.failed{background:#fde4e4}.error{background:#fff1d6}
.skipped{background:#eef}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}thead th,thead td{background:#f6f7fa}tbody th{font-weight:400}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.bar{background:#fde4e4;width:8rem;height:.7rem;border-radius:3px;overflow:hidden;margin-top:.3rem}
.bar div{background:#3fb56b;height:100%}
pre{background:#f6f7fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;font-size:12.5px}
mark{background:#ffd86b;color:#1d2330;padding:0 .1em}
.evidence{font-weight:400}.evidence code,.legend code{font-size:12.5px}
.span{font-variant-numeric:tabular-nums;color:#3b4256}
.notice{background:#fff1d6;border:1px solid #e8c77a;border-radius:6px;padding:.6rem 1rem;
font-weight:600}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}
dl.meta dt{font-weight:600}dl.meta dd{margin:0;word-break:break-all}
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0;
padding:.5rem .8rem;border:1px solid #e4e6ee;border-radius:6px;font-size:13px}
dl.legend dt{text-align:right}dl.legend dd{margin:0}
#controls{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;position:sticky;top:0;
background:#fff;padding:.5rem 0;border-bottom:1px solid #dde;z-index:1}
#controls input[type=search]{width:12rem}
details.case{border:1px solid #e4e6ee;border-radius:6px;margin:.4rem 0;padding:.2rem .8rem}
details.case>summary{cursor:pointer}.st{display:inline-block;min-width:4rem;text-align:center;
border-radius:4px;padding:0 .3rem;margin-right:.4rem;font-size:12px}
.src,.usage{color:#5a6275;font-size:12px;margin-left:.5rem}.reason{margin:.3rem 0}
.times{display:inline-block;margin-left:.5rem;padding:0 .4rem;border-radius:4px;font-size:12px;
font-weight:600;background:#1d2330;color:#fff;font-variant-numeric:tabular-nums}
ul.tree{list-style:none;padding-left:1.1rem;margin:.2rem 0}ul.tree li{margin:.1rem 0}
.node-f,.node-e{font-weight:600}.why{margin:.1rem 0 .1rem 4.7rem;color:#7a2430}.muted{color:#5a6275}
details.case[open]>summary>.why{display:none}
.note{margin:.1rem 0 .1rem 4.7rem;color:#6b4a00}
details.example{margin:.3rem 0 .3rem 1.1rem}details.example>summary{cursor:pointer}
"""

_SCRIPT = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById("ca-data").textContent);
var NAMES={p:"passed",f:"failed",e:"error",s:"skipped"},RANK={e:0,f:1,s:2,p:3},PAGE=500;
function el(tag,cls,text){var n=document.createElement(tag);if(cls)n.className=cls;
 if(text!==undefined&&text!==null)n.textContent=String(text);return n;}
function num(n){return Number(n).toLocaleString("en-US");}
function counted(n,w){return num(n)+" "+D.words[w][n===1?0:1];}
var items=[],groups={},total=0;
D.rows.forEach(function(r,i){var c=D.cases[r[0]],src=r[4][0]||"",m=/^(.*):(\d+)$/.exec(src);
 var row={i:i,suite:c[0],name:c[1],tags:c[2],key:(c[0]+" / "+c[1]).toLowerCase(),st:r[1],
  secs:r[2],asserts:r[3],src:src,file:m?m[1]:src,line:m?+m[2]:0,usage:r[4][1],detail:r[4][2],
  by:r[4][3],n:r.length>5?D.groups[r[5]]:1,examples:null};
 if(row.n>1){var first=groups[r[5]];if(first){first.examples.push(row);return;}
  row.examples=[row];groups[r[5]]=row;}
 total+=row.n;items.push(row);});
var $=function(id){return document.getElementById(id);};
var labels=$("labels");
D.labels.forEach(function(l){var o=el("option");o.value=l;labels.appendChild(o);});
var tagSel=$("f-tag"),tags={};D.cases.forEach(function(c){c[2].forEach(function(t){tags[t]=1;});});
Object.keys(tags).sort().forEach(function(t){var o=el("option",null,t);o.value=t;
 tagSel.appendChild(o);});
if(!Object.keys(tags).length)tagSel.disabled=true;
var shown=PAGE,list=$("cases");
function statuses(){var s={};document.querySelectorAll("#controls input[data-st]").forEach(
 function(b){if(b.checked)s[b.getAttribute("data-st")]=1;});return s;}
function sources(r){return r.examples?r.examples.map(function(x){return x.src;}):[r.src];}
function matching(){var st=statuses(),text=$("f-case").value.trim().toLowerCase(),
 a=$("f-assert").value.trim().toLowerCase(),tag=tagSel.value,ids=null;
 if(a){ids={};D.labels.forEach(function(l,i){if(l.toLowerCase().indexOf(a)>=0)ids[i]=1;});}
 var out=items.filter(function(r){
  if(text&&r.key.indexOf(text)<0&&!sources(r).some(function(s){
   return s.toLowerCase().indexOf(text)>=0;}))return false;
  if(tag&&r.tags.indexOf(tag)<0)return false;
  if(ids)return r.asserts.some(function(p){return ids[p[0]]&&st[p[1]];});
  return !!st[r.st];});
 var by=$("f-sort").value;
 out.sort(function(x,y){var d=0;
  if(by==="status")d=RANK[x.st]-RANK[y.st];
  else if(by==="case")d=x.key<y.key?-1:x.key>y.key?1:0;
  else if(by==="line")d=x.file<y.file?-1:x.file>y.file?1:x.line-y.line;
  else if(by==="time")d=y.secs-x.secs;
  return d||x.i-y.i;});
 return out;}
function usageText(u){if(!u)return "";var p=[];
 if(u.tokens!==undefined)p.push(counted(u.tokens,"token"));
 if(u.cost!==undefined)p.push("$"+(+u.cost).toPrecision(3));
 if(u.ms!==undefined)p.push(num(u.ms)+" ms");return p.join(" · ");}
function checks(asserts){var n={f:0,e:0,s:0,p:0},p=[];
 asserts.forEach(function(a){n[a[1]]+=1;});
 ["f","e","s","p"].forEach(function(k){if(n[k])p.push(num(n[k])+" "+NAMES[k]);});
 return counted(asserts.length,"check")+(p.length?": "+p.join(", "):"");}
function tree(node){var li=el("li","node-"+node.s),head=el("span");
 var named=node.sn||node.n,place=node.ps,title=node.m||named;
 if(!node.m&&place&&(place===named||place.slice(-named.length-1)==="."+named)){
  title=place;place=null;}
 head.appendChild(el("span","st "+NAMES[node.s],NAMES[node.s]));
 head.appendChild(el("b",null,title));
 var more=[];if(node.m)more.push(named);if(node.sn)more.push("native: "+node.n);
 if(more.length)head.appendChild(el("span","muted"," ("+more.join("; ")+")"));
 if(place&&place!==node.at)head.appendChild(el("span","muted place"," at "+place));
 if(node.at)head.appendChild(el("span","muted loc"," @ "+node.at));
 if(node.r)head.appendChild(el("span",null," — "+node.r));
 if(node.p!==undefined){var ev=el("div","evidence");ev.appendChild(el("code","ptr",node.p));
  if(node.mk){ev.appendChild(el("span","span"," "+node.sp[0]+"-"+node.sp[1]));
   ev.appendChild(el("span",null,": "));var x=el("span","excerpt");
   x.appendChild(el("span",null,node.mk[0]));x.appendChild(el("mark",null,node.mk[1]));
   x.appendChild(el("span",null,node.mk[2]));ev.appendChild(x);}
  head.appendChild(ev);}
 if(node.c&&node.c.length){var d=el("details");d.open=node.s!=="p";
  var s=el("summary");s.appendChild(head);d.appendChild(s);var ul=el("ul","tree");
  node.c.forEach(function(c){ul.appendChild(tree(c));});d.appendChild(ul);li.appendChild(d);}
 else li.appendChild(head);
 return li;}
function where(s,r){s.appendChild(el("span","src",r.src));
 if(r.detail&&r.detail.id!==undefined)s.appendChild(el("span","src sid","id "+r.detail.id));
 var by=r.by,note=null;if(by&&typeof by!=="string"){note=by[1];by=by[0];}
 if(by)s.appendChild(el("span","src by","matched by "+by));
 var u=usageText(r.usage);if(u)s.appendChild(el("span","usage",u));
 if(note)s.appendChild(el("div","note",note));}
function transcript(to,x){if(x.cost)to.appendChild(el("p","judge",x.cost));
 if(x.excerpt)to.appendChild(el("pre","transcript",x.excerpt));}
function fill(d,r){var x=r.detail;if(!x){d.appendChild(el("p","reason muted","passed: "+
  r.asserts.map(function(p){return D.labels[p[0]];}).join(", ")));return;}
 if(r.asserts.length)d.appendChild(el("p","checks muted",checks(r.asserts)));
 var root=x.tree,ul=el("ul","tree");
 (root.c&&root.c.length?root.c:[root]).forEach(function(c){ul.appendChild(tree(c));});
 d.appendChild(ul);
 if(!r.examples){transcript(d,x);return;}
 var k=r.examples.length;
 d.appendChild(el("p","group","The same result in "+counted(r.n,"case")+(r.n>k?"; the first "+
  num(k)+" of them":"")+", as examples:"));
 r.examples.forEach(function(e,j){var ex=el("details","example"),s=el("summary");
  s.appendChild(el("span",null,"example "+(j+1)));where(s,e);ex.appendChild(s);
  transcript(ex,e.detail);ex.open=j===0;d.appendChild(ex);});}
function caseEl(r){var d=el("details","case "+NAMES[r.st]+"-case"),s=el("summary");
 d.setAttribute("data-status",NAMES[r.st]);
 s.appendChild(el("span","st "+NAMES[r.st],NAMES[r.st]));
 s.appendChild(el("span","name",r.suite+" / "+r.name));
 if(r.examples){d.setAttribute("data-count",String(r.n));
  s.appendChild(el("span","times",counted(r.n,"case")));
  s.appendChild(el("span","src",sources(r).join(", ")+(r.n>r.examples.length?", …":"")));}
 else where(s,r);
 if(r.tags.length)s.appendChild(el("span","usage","#"+r.tags.join(" #")));
 if(r.detail)s.appendChild(el("div","why",r.detail.tree.r));
 d.appendChild(s);
 d.addEventListener("toggle",function(){if(!d.open||d.filled)return;d.filled=true;fill(d,r);});
 return d;}
function render(){var out=matching(),n=0;list.textContent="";
 var f=document.createDocumentFragment();
 out.slice(0,shown).forEach(function(r){f.appendChild(caseEl(r));});
 out.forEach(function(r){n+=r.n;});
 list.appendChild(f);$("count").textContent=num(n)+" of "+counted(total,"case");
 var more=$("more");more.hidden=out.length<=shown;
 more.textContent="show "+num(Math.min(PAGE,out.length-shown))+" more";}
function again(){shown=PAGE;render();}
document.querySelectorAll("#controls input,#controls select").forEach(function(n){
 n.addEventListener(n.type==="search"?"input":"change",again);});
$("more").addEventListener("click",function(){shown+=PAGE;render();});
function openAll(v){list.querySelectorAll("details.case").forEach(function(d){
 d.open=v;if(v)d.dispatchEvent(new Event("toggle"));});}
$("expand").addEventListener("click",function(){openAll(true);});
$("collapse").addEventListener("click",function(){openAll(false);});
render();
var first=list.querySelector("details.case");if(first&&first.getAttribute("data-status")!=="passed")
 first.open=true;
var um=$("unmatched");if(um&&D.unmatched.length){um.hidden=false;
 $("unmatched-count").textContent=num(D.unmatched.length);
 um.addEventListener("toggle",function(){if(um.filled)return;um.filled=true;var ul=el("ul");
  D.unmatched.forEach(function(u){var li=el("li");li.appendChild(el("code",null,u[0]));
   li.appendChild(el("span",null," — "+(u[2]||"no case of "+u[1]+" matches it")));
   ul.appendChild(li);});
  um.appendChild(ul);});}
})();
"""

_CONTROLS = """<div id="controls">
<span>status:
<label><input type="checkbox" data-st="f" checked> failed</label>
<label><input type="checkbox" data-st="e" checked> error</label>
<label><input type="checkbox" data-st="s"> skipped</label>
<label><input type="checkbox" data-st="p"> passed</label></span>
<label>assertion <input type="search" id="f-assert" list="labels" placeholder="kind or name">
</label><datalist id="labels"></datalist>
<label>case <input type="search" id="f-case" placeholder="suite / case or file:line"></label>
<label>tag <select id="f-tag"><option value="">any</option></select></label>
<label>sort <select id="f-sort"><option value="line">log line</option>
<option value="status">status</option><option value="case">case</option>
<option value="time">slowest</option></select></label>
<button type="button" id="expand">expand all</button>
<button type="button" id="collapse">collapse all</button>
<span id="count" class="muted" aria-live="polite"></span>
</div>"""

_LEGEND = f"""<dl class="legend" id="legend" aria-label="how to read a result">
<dt><strong>contains_any</strong> <span class="muted">at turns[0].assertions[1]</span></dt>
<dd>a check, named as the suite file names it, and its <dfn>place</dfn> in that file (in the
file's own keys); <span class="muted">(native: expect_status)</span> names the check that runs
it where the file's name is another</dd>
<dt><span class="muted">@ turns[0]</span></dt>
<dd>a <dfn>location</dfn>: where in what was checked a check applies (turns are counted from 0)
</dd>
<dt><code>/turns/0/text</code></dt>
<dd>a <dfn>pointer</dfn>: where a check found its evidence, as a JSON Pointer into what was
checked (here the text of turn 0)</dd>
<dt><span class="span">40-47</span></dt>
<dd>a <dfn>span</dfn>: the evidence's characters in that text, counted from 0: from 40 up to 47,
47 not included</dd>
<dt><mark>marked</mark></dt>
<dd>the span, marked in an <dfn>excerpt</dfn> of the text around it (<code>…</code> where text is
left out)</dd>
<dt><span class="times">{counted(EXAMPLES + 1, "case")}</span></dt>
<dd>identical results: one case, with the same checks not passing for the same reasons, listed
once with their count and the first {number(EXAMPLES)} as examples</dd>
</dl>"""


_STATUSES = ("passed", "failed", "error", "skipped")


def _rate_row(label: str, counts: Counter[str]) -> str:
    rate = pass_rate(counts)  # over evaluated outcomes: a skipped check is not a failure
    cells = "".join(f'<td class="num">{number(counts[k])}</td>' for k in _STATUSES)
    shown = "—" if rate is None else f"{rate:.1%}"
    return (
        f'<tr><th scope="row">{escape(label)}</th>{cells}<td class="num">{shown}</td>'
        f'<td aria-hidden="true"><div class="bar"><div style="width:{(rate or 0) * 100:.1f}%">'
        "</div></div></td></tr>"
    )


def _table(title: str, rows: dict[str, Counter[str]], what: str) -> list[str]:
    """A table of pass rates: a header over each column aligned as its cells are (the
    counts and rates to the right), one row per label."""
    out = [
        f"<details open><summary><h2 style=display:inline>{escape(title)}</h2></summary>",
        "<table>",
        f'<thead><tr><th scope="col">{escape(what)}</th>'
        '<th scope="col" class="num">passed</th><th scope="col" class="num">failed</th>'
        '<th scope="col" class="num">errors</th><th scope="col" class="num">skipped</th>'
        '<th scope="col" class="num">pass rate</th><td aria-hidden="true"></td></tr></thead>',
        "<tbody>",
    ]
    out.extend(_rate_row(label, counts) for label, counts in sorted(rows.items()))
    out.append("</tbody></table></details>")
    return out


def _meta(meta: Mapping[str, Any]) -> list[str]:
    """The run's metadata as a definition list."""
    shown = []
    for key, label in (
        ("date", "date"),
        ("command", "command"),
        ("suites", "suites"),
        ("logs", "logs"),
        ("version", "chatassert"),
        ("duration", "duration"),
    ):
        value = meta.get(key)
        if value is None or value == []:
            continue
        if key == "duration":
            text = f"{value:.2f} s"
        elif isinstance(value, list):
            text = ", ".join(str(v) for v in value)
        else:
            text = str(value)
        shown.append(f"<dt>{label}</dt><dd>{escape(text)}</dd>")
    return ['<dl class="meta">', *shown, "</dl>"] if shown else []


def write_html(
    summary: Summary,
    out: SupportsWrite[str],
    *,
    writer: HtmlWriter | None = None,
    meta: Mapping[str, Any] | None = None,
    title: str = "chatassert report",
) -> None:
    """Write the page to `out`: the cases `writer` spooled (else the failing examples the
    summary kept), with the run's `meta` (date, command, suites, logs, version, duration)."""
    if writer is None:
        writer = HtmlWriter()
        for outcome in summary.failures:
            writer.add_outcome(outcome)
    meta = dict(meta or {})
    c = summary.counts
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        *_meta(meta),
        *([f'<p class="notice">{escape(summary.notice)}</p>'] if summary.notice else []),
        '<p class="totals">',
        f'<span class="total">{number(summary.total)} checked</span>',
        f'<span class="passed">{number(c["passed"])} passed</span>',
        f'<span class="failed">{number(c["failed"])} failed</span>',
        f'<span class="error">{counted(c["error"], "error")}</span>',
        f'<span class="skipped">{number(c["skipped"])} skipped</span>',
    ]
    if summary.unreadable_count:
        unreadable = counted(summary.unreadable_count, "unreadable line")
        parts.append(f'<span class="error">{unreadable}</span>')
    if summary.unmatched:
        unmatched = number(summary.unmatched)
        parts.append(f'<span class="error">{unmatched} without a matching case</span>')
    parts.append("</p>")
    parts += _judging_block(summary)
    if summary.gates:  # what the suites require of the whole run, before its details
        from chatassert.reporting._gate_reports import gate_html

        parts += gate_html(summary.gates)
    parts += _table("Pass rate per assertion", summary.per_assertion, "assertion")
    parts += _table("Pass rate per case", summary.per_case, "suite / case")
    parts.append("<h2>Cases</h2>")
    parts.append(_LEGEND)
    parts.append(_CONTROLS)
    parts.append(
        '<div id="cases"><noscript>The list of cases needs JavaScript.</noscript></div>'
        '<button type="button" id="more" hidden>show more</button>'
    )
    parts.append(
        '<details id="unmatched" hidden><summary><h2 style=display:inline>'
        'Conversations without a matching case: <span id="unmatched-count"></span>'
        "</h2></summary></details>"
    )
    if summary.unreadable:
        more = summary.unreadable_count - len(summary.unreadable)
        parts.append("<h2>Unreadable log lines</h2><ul>")
        parts.extend(
            f"<li><code>{escape(relative_to_cwd(where))}</code>: {escape(error)}</li>"
            for where, error in summary.unreadable
        )
        if more:
            parts.append(f"<li>… and {number(more)} more</li>")
        parts.append("</ul>")
    # the characters a JUnit file cannot hold (controls, lone surrogates) have no place here
    out.write(INVALID_XML.sub("\ufffd", "\n".join(parts)))
    out.write('\n<script type="application/json" id="ca-data">')
    writer.write_data(out, meta)
    out.write(f"</script>\n<script>{_SCRIPT}</script>\n</body></html>\n")
    writer.close()


def render_html(
    summary: Summary, *, title: str = "chatassert report", verbose: bool = False
) -> str:
    r"""Render the summary as one self-contained HTML page.

    It shows the totals, pass rates per assertion and per case, the failing examples the
    summary kept (filterable, with their result trees and transcript excerpts), and the log
    lines that could not be read. The command line's report lists every case of the run.

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.reporting import Outcome, Summary
        >>> summary = Summary()
        >>> summary.add(Outcome("s", "c", Contains("<b>").check("plain"), "log:1"))
        >>> page = render_html(summary)
        >>> "<b>" in page, r"\u003cb\u003e" in page  # in the page's JSON, escaped
        (False, True)
    """
    del verbose  # the page's result trees always show every node
    from io import StringIO

    buffer = StringIO()
    write_html(summary, buffer, title=title)
    return buffer.getvalue()


def _judging_block(summary: Summary) -> list[str]:
    """The flaky count and what judging cost over the run, when there is anything to say."""
    out = []
    if summary.flaky:
        flaky = counted(summary.flaky, "case")
        out.append(f'<p class="flaky">{flaky} with flaky judged checks</p>')
    if summary.costs.used:
        out.append(f'<p class="judge">{escape(cost_text(summary.costs.to_dict()))}</p>')
    return out


class _HtmlReport:
    """An HTML page: each case row spooled (`HtmlWriter`), the page written at the end.

    Rows read back from a report (`ReportOptions(subjects=False)`, as `chatassert regate`
    gives them) carry no usage and no excerpt: the page then shows the failing examples the
    summary keeps, and no row is spooled.
    """

    def __init__(self, out: Writable, options: ReportOptions) -> None:
        self.out = out
        self.cases = HtmlWriter(options.tags) if options.subjects else None

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Spool a case outcome as rendered, or a record no case matches."""
        cases = self.cases
        if cases is None:
            return
        kind = row.kind
        if kind == "case":
            cases.add(
                row.suite or "",
                row.case or "",
                row.status,
                row.assertions,
                row.duration,
                rendered["html"],
            )
        elif kind == "unmatched":
            cases.add_unmatched(row.source, row.suite or "", row.error)

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Write the page (`write_html`), with the run's `meta`."""
        write_html(summary, self.out, writer=self.cases, meta=meta)


class _Html:
    """The HTML report (`--format html`): one self-contained page of the run."""

    name = "html"
    extensions = (".html", ".htm")
    description = "one self-contained page"
    rows = "spooled"
    excerpts = True
    needs_subject = False

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """What the page shows of the outcome (`html_case`)."""
        return {"html": html_case(outcome, subject)}

    def open(self, out: Writable, options: ReportOptions) -> _HtmlReport:
        """Start an HTML report to `out`."""
        return _HtmlReport(out, options)


HTML = _Html()
"""The HTML report format."""
