#!/usr/bin/python3
"""The nnef-draw page in a real browser (docs/draw.md, HTML page; issue 23, acceptance 2).

Headless Chromium loads each page from a file with the network off; the script clicks an
operation and checks the side panel (its attributes, shapes and source line), clicks a collapsed
fragment and checks that its nodes appear, searches a name hidden in a collapsed fragment, and on a
page with the lowering checks the TOSA operators and VPU tasks it highlights. Every request must
be for the page's own file (or a data: URL), and no script error may occur. The first render's time
is printed for the log (docs/draw.md, Speed).

  page_test.py PAGE.html [PAGE.html ...]          test pages as they are
  page_test.py --screenshot OUT.png PAGE.html     also write a screenshot (docs/draw-*.png)
Exit 0 pass, 1 fail, 77 skipped (no Chromium), 2 usage.
"""
import argparse
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

SKIP = 77


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)
    print('  ok: ' + what)


# A visible element's centre in page coordinates, centred in its pane first.
POSITION = r"""(function (id, which) {
  var cy = which === 'tosa' ? nnefDraw.tosa : nnefDraw.cy;
  var e = cy.getElementById(id);
  if (!e.length) return null;
  if (cy.zoom() < 0.8) cy.zoom(1);
  cy.center(e);
  var p = e.renderedPosition(), r = cy.container().getBoundingClientRect();
  return {x: r.left + p.x, y: r.top + p.y};
})(%s, %s)"""


def position(b, element, which='nnef'):
    p = b.evaluate(POSITION % (json.dumps(element), json.dumps(which)))
    if p is None:
        raise Failure('%s is not drawn' % element)
    return p


def panel_text(b):
    return b.evaluate("document.getElementById('panel-body').innerText")


def visible(b, element):
    return b.evaluate('nnefDraw.cy.getElementById(%s).length === 1' % json.dumps(element))


def test_page(b, path, screenshot=None):
    print(path)
    b.requests.clear()
    b.open('file://' + os.path.abspath(path))
    ms = b.wait_for("document.body.getAttribute('data-ready')")
    pic = b.evaluate('nnefDraw.picture')
    shown = b.evaluate("nnefDraw.cy.nodes().length")
    print('  first render: %s ms (%d picture nodes, %d clusters, %d drawn)' % (
        ms, len(pic['nodes']), len(pic['clusters']), shown))
    nodes = {n['id']: n for n in pic['nodes']}
    clusters = {c['id']: c for c in pic['clusters']}

    # an operation with attributes, drawn (not inside a collapsed fragment)
    ops = [n for n in pic['nodes'] if n['kind'] == 'operation' and visible(b, n['id'])]
    check(ops, 'an operation is drawn')
    ops.sort(key=lambda n: (-len(n.get('attributes') or {}), bool(n.get('error'))))
    op = ops[0]
    p = position(b, op['id'])
    b.click(p['x'], p['y'])
    text = panel_text(b)
    check(text.splitlines()[0].strip() == op['name'], "clicking operation '%s' shows it in the panel" % op['name'])
    for k, v in (op.get('attributes') or {}).items():
        check(k in text and v in text, 'the panel shows attribute %s = %s' % (k, v))
    shape = (op.get('tensor') or {}).get('shape')
    if shape is not None:
        s = '[' + ','.join('?' if d is None else str(d) for d in shape) + ']'
        check(s in text, 'the panel shows the result shape ' + s)
    loc = op.get('location')
    if loc:
        s = '%s:%d:%d' % (loc['file'], loc['line'], loc['column'])
        check(s in text, 'the panel shows the source line ' + s)
    check(b.evaluate('nnefDraw.cy.$(":selected").map(function (e) { return e.id(); })') == [op['id']],
          'the operation is selected')

    low = pic.get('lowering')
    if low and low.get('tosa'):
        links = (low.get('links') or {}).get(op['id'], {})
        linked = b.evaluate("nnefDraw.tosa ? nnefDraw.tosa.nodes('.linked').map(function (n) { return n.id(); }) : []")
        check(sorted(linked) == sorted(links.get('tosa', [])) and linked,
              'the TOSA pane highlights the %d operators lowered from it' % len(linked))
        tasks = b.evaluate("Array.prototype.map.call(document.querySelectorAll('#vpu g.linked'), "
                           "function (g) { return Number(g.getAttribute('data-task')); })")
        check(sorted(tasks) == sorted(links.get('tasks', [])),
              'the VPU schedule highlights its %d tasks' % len(tasks))
    if low and low.get('error'):
        check(low['error'].splitlines()[0] in b.evaluate("document.getElementById('lowering-error').innerText"),
              'the lowering pane shows the lowering error')

    # the error mark: drawn (never folded into a fragment) and explained in the panel
    for n in pic['nodes']:
        if not n.get('error'):
            continue
        check(b.evaluate('nnefDraw.cy.getElementById(%s).hasClass("error")' % json.dumps(n['id'])),
              "the error node '%s' is drawn marked" % n['name'])
        p = position(b, n['id'])
        b.click(p['x'], p['y'])
        check(n['error'].splitlines()[0] in panel_text(b), 'clicking it shows the diagnostic in the panel')
        break

    # a collapsed fragment, drawn: clicking it expands it in place
    collapsed = [c for c in pic['clusters'] if visible(b, c['id']) and
                 not b.evaluate('nnefDraw.expanded[%s]' % json.dumps(c['id']))]
    if collapsed:
        c = collapsed[0]
        inside = [n['id'] for n in pic['nodes'] if n.get('cluster') == c['id']]
        inner = [k['id'] for k in pic['clusters'] if k.get('parent') == c['id']]
        check(not any(visible(b, n) for n in inside), "fragment '%s' starts collapsed" % c['fragment'])
        before = b.evaluate('nnefDraw.cy.nodes().length')
        p = position(b, c['id'])
        b.click(p['x'], p['y'])
        check(b.evaluate('nnefDraw.expanded[%s]' % json.dumps(c['id'])) is True, "clicking '%s' expands it" % c['fragment'])
        check(all(visible(b, n) for n in inside + inner),
              'its %d nodes and %d inner fragments appear' % (len(inside), len(inner)))
        check(b.evaluate('nnefDraw.cy.nodes().length') > before, 'more nodes are drawn')
        check('fragment (expanded)' in panel_text(b), 'the panel shows the expanded fragment')
    else:
        print('  (no collapsed fragment on this page: the expansion is not checked here)')

    # search: a node hidden in a collapsed fragment is revealed, selected and centred
    hidden = [n for n in pic['nodes'] if n['kind'] == 'operation' and not visible(b, n['id'])]
    target = hidden[0] if hidden else ops[-1]
    b.evaluate("(function () { var s = document.getElementById('search'); s.value = ''; s.focus(); })()")
    b.type_text(target['name'])
    matches = b.evaluate("document.getElementById('search-count').innerText")
    b.press('Enter')
    b.wait_for('nnefDraw.cy.$(":selected").length > 0')
    sel = b.evaluate('nnefDraw.cy.$(":selected").map(function (e) { return e.id(); })')
    name = lambda i: (nodes.get(i) or {}).get('name')
    check(sel and name(sel[0]) and target['name'] in name(sel[0]) and visible(b, sel[0]),
          "searching '%s' (%s) selects and shows it%s" % (target['name'], matches, ' (it was hidden)' if hidden else ''))

    bad = [u for u in b.requests if not (u.startswith('file://') or u.startswith('data:') or u == 'about:blank')]
    check(not bad, 'no request leaves the file (%d requests)' % len(b.requests))
    check(not b.exceptions and not b.console_errors, 'no script error')
    if screenshot:
        # legible: the first operation selected again, at zoom 1 in the middle of each pane
        b.evaluate("nnefDraw.reveal(%s)" % json.dumps(op['id']))
        time.sleep(0.5)
        b.evaluate("(function () { var cy = nnefDraw.cy, e = cy.$(':selected'); cy.zoom(1); cy.center(e);"
                   " var t = nnefDraw.tosa; if (t) { var l = t.nodes('.linked'); t.zoom(1.2); if (l.length) t.center(l); } })()")
        time.sleep(0.3)
        b.screenshot(screenshot)
        print('  wrote ' + screenshot)
    return ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('pages', nargs='+')
    ap.add_argument('--screenshot', action='append', default=[], help='one per page, in order')
    ap.add_argument('--chromium', default=os.environ.get('NNEF_CHROMIUM', '/usr/bin/chromium'))
    a = ap.parse_args()
    if not (os.path.exists(a.chromium) or shutil.which(a.chromium)):
        print('skipped: no Chromium at %s (Debian package chromium; scripts/install-deps.sh)' % a.chromium)
        return SKIP
    failures = 0
    with cdp.Browser(a.chromium) as b:
        for i, page in enumerate(a.pages):
            try:
                test_page(b, page, a.screenshot[i] if i < len(a.screenshot) else None)
            except (Failure, cdp.CdpError) as e:
                print('  FAIL: %s' % e)
                failures += 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
