// The nnef-draw page (docs/draw.md, HTML page): draws the picture document embedded in the page
// with cytoscape.js and its dagre layout. Clusters (compound-fragment invocations) follow the
// collapsing rule of the picture document: a collapsed cluster is one node, a node inside it is
// represented by its outermost collapsed ancestor, edges inside one representative are hidden and
// parallel edges of one tensor are drawn once. With a "lowering" member, the TOSA graph and the
// VPU schedule are drawn beside the NNEF graph and selecting a node highlights what came from it.
(function () {
  'use strict';
  var started = performance.now();
  var picture = JSON.parse(document.getElementById('picture').textContent);
  var nodes = picture.nodes || [], edges = picture.edges || [], clusters = picture.clusters || [];
  var lowering = picture.lowering || null;
  // A large picture's first view comes laid out by nnef-draw (docs/draw.md, Speed of the page):
  // positions per drawn node, and copies "nK_1", "nK_2", ... of a variable or constant read by
  // several operations (one beside each reader). Used until a fragment opens or closes, when the
  // page lays out the new view itself (dagre) and draws each node once.
  var preset = picture.layout || null;
  var nodeById = {}, clusterById = {}, expanded = {}, children = {};
  nodes.forEach(function (n) { nodeById[n.id] = n; });
  clusters.forEach(function (c) { clusterById[c.id] = c; expanded[c.id] = !!c.expanded; });
  clusters.forEach(function (c) { if (c.parent) (children[c.parent] = children[c.parent] || []).push(c.id); });
  var members = {};  // cluster id -> nodes directly inside
  nodes.forEach(function (n) { if (n.cluster) (members[n.cluster] = members[n.cluster] || []).push(n.id); });
  var depthOf = {};
  function depth(cid) {
    if (depthOf[cid] !== undefined) return depthOf[cid];
    var c = clusterById[cid];
    return (depthOf[cid] = c && c.parent && clusterById[c.parent] ? depth(c.parent) + 1 : 0);
  }
  var clustersByDepth = clusters.slice().sort(function (a, b) { return depth(a.id) - depth(b.id); });
  // innermost first
  function chain(cid) {
    var r = [];
    while (cid && clusterById[cid]) { r.push(cid); cid = clusterById[cid].parent; }
    return r;
  }
  // The outermost collapsed cluster around a node, or null.
  function outermostCollapsed(cid) {
    var r = null, ch = chain(cid);
    for (var i = 0; i < ch.length; i++) if (!expanded[ch[i]]) r = ch[i];
    return r;
  }
  // An error node stays visible (the mark must not be folded away), drawn beside its fragment.
  function representative(n) {
    return n.error ? n.id : outermostCollapsed(n.cluster) || n.id;
  }
  function home(n) {
    var c = outermostCollapsed(n.cluster);
    return c ? clusterById[c].parent : n.cluster;
  }

  // ---- labels ---------------------------------------------------------------------------------
  function shapeText(shape) {
    if (!shape) return '?';
    return '[' + shape.map(function (d) { return d === null || d === undefined ? '?' : d; }).join(',') + ']';
  }
  function bytesText(b) {
    if (b === null || b === undefined) return '';
    if (b >= 1048576) return (b / 1048576).toFixed(1) + ' MiB';
    if (b >= 1024) return (b / 1024).toFixed(1) + ' KiB';
    return b + ' B';
  }
  function quantText(q) {
    if (!q) return '';
    var parts = [];
    Object.keys(q).forEach(function (k) { if (k !== 'op' && k !== 'algorithm') parts.push(k + '=' + q[k]); });
    return (q.op || q.algorithm || 'quantized') + (parts.length ? '(' + parts.join(', ') + ')' : '');
  }
  function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
  function nodeLabel(n) {
    var t = n.tensor || {};
    var lines;
    if (n.kind === 'operation') lines = [n.op, clip(n.name, 28)];
    else if (n.kind === 'variable') lines = [clip(n.name, 28), shapeText(t.shape) + (t.bytes ? '  ' + bytesText(t.bytes) : '')];
    else if (n.kind === 'constant') lines = [clip(n.name, 28), n.attributes && n.attributes.value ? 'value ' + clip(n.attributes.value, 20) : shapeText(t.shape)];
    else if (n.kind === 'error') lines = [n.op ? n.op + ' ' + clip(n.name, 24) : 'error', clip(String(n.error || '').replace(/^.*?error\[[a-z]+\]: /, ''), 40)];
    else lines = [n.kind + ' ' + clip(n.name, 24), shapeText(t.shape)];
    if (t.quantization) lines.push(clip(quantText(t.quantization), 30));
    if (n.error) lines.unshift('\u26a0 error');
    return lines.join('\n');
  }
  // Two short lines (dtype, shape) rather than one long one: labels of neighbouring edges collide less.
  function edgeLabel(e) {
    return (e.dtype || '?') + (e.quantization ? ' q' : '') + '\n' + shapeText(e.shape);
  }
  function box(label, min) {
    var lines = label.split('\n'), w = 0;
    lines.forEach(function (l) { w = Math.max(w, l.length); });
    return { w: Math.max(min || 60, w * 7.4 + 20), h: lines.length * 14 + 12 };
  }

  // ---- elements -------------------------------------------------------------------------------
  function visibleCluster(c) {
    var ch = chain(c.parent);
    for (var i = 0; i < ch.length; i++) if (!expanded[ch[i]]) return false;
    return true;
  }
  var repOf = {};
  function elements() {
    var els = [];
    clustersByDepth.forEach(function (c) {
      if (!visibleCluster(c)) return;
      var label = c.label || c.fragment;
      if (expanded[c.id]) {
        els.push({ group: 'nodes', data: { id: c.id, label: label, parent: c.parent || undefined, kind: 'cluster' }, classes: 'cluster' });
      } else {
        var l = label + (label !== c.fragment ? ' (' + c.fragment + ')' : '') + '\n\u25b8 ' + (c.location ? 'line ' + c.location.line : 'open');
        var b = box(l, 90);
        els.push({ group: 'nodes', data: { id: c.id, label: l, parent: c.parent || undefined, kind: 'fragment', w: b.w, h: b.h }, classes: 'fragment' });
      }
    });
    nodes.forEach(function (n) {
      var r = representative(n);
      repOf[n.id] = r;
      if (r !== n.id) return;
      var label = nodeLabel(n), b = box(label);
      els.push({ group: 'nodes', data: { id: n.id, label: label, parent: home(n) || undefined, kind: n.kind, w: b.w, h: b.h },
                 classes: n.kind + (n.error ? ' error' : '') });
      for (var k = 1; preset && preset[n.id + '_' + k]; k++)
        els.push({ group: 'nodes', data: { id: n.id + '_' + k, copyOf: n.id, label: label, parent: home(n) || undefined, kind: n.kind, w: b.w, h: b.h },
                   classes: n.kind + ' copy' });
    });
    // Edges in the order of the picture, as nnef-draw draws them: the k-th edge from a copied node
    // leaves its copy k.
    var seen = {}, labelled = {}, uses = {};
    edges.forEach(function (e) {
      var a = repOf[e.from], b = repOf[e.to];
      if (a === undefined || b === undefined || a === b) return;
      var key = a + '\u0000' + b + '\u0000' + e.tensor;
      if (seen[key]) return;
      seen[key] = true;
      var k = uses[a] = (uses[a] || 0) + 1;
      var from = preset && k > 1 && preset[a + '_' + (k - 1)] ? a + '_' + (k - 1) : a;
      // a tensor that fans out is labelled on one of its edges (each copy's own)
      var first = !labelled[from + '\u0000' + e.tensor];
      labelled[from + '\u0000' + e.tensor] = true;
      els.push({ group: 'edges', data: { id: e.id, source: from, target: b, label: first ? edgeLabel(e) : '', tensor: e.tensor } });
    });
    return els;
  }

  // ---- styles: the colours and shapes of the SVG (tools/draw/render.cpp): inputs green, outputs
  //      blue (houses), variables yellow cylinders, constants grey, fragments purple, errors red ---
  var house = '-1 1 1 1 1 -0.2 0 -1 -1 -0.2', invhouse = '-1 -1 1 -1 1 0.2 0 1 -1 0.2';
  var style = [
    { selector: 'node', style: { 'label': 'data(label)', 'text-wrap': 'wrap', 'text-valign': 'center', 'text-halign': 'center',
        'font-size': 11, 'font-family': 'DejaVu Sans, Arial, sans-serif', 'width': 'data(w)', 'height': 'data(h)',
        'shape': 'round-rectangle', 'background-color': '#ffffff', 'border-width': 1.2, 'border-color': '#455a64', 'color': '#212121' } },
    { selector: 'node.input', style: { 'background-color': '#c8e6c9', 'border-color': '#2e7d32', 'shape': 'polygon', 'shape-polygon-points': invhouse } },
    { selector: 'node.output', style: { 'background-color': '#bbdefb', 'border-color': '#1565c0', 'shape': 'polygon', 'shape-polygon-points': house } },
    { selector: 'node.variable', style: { 'background-color': '#fff3c4', 'border-color': '#a07800', 'shape': 'barrel' } },
    { selector: 'node.constant', style: { 'background-color': '#eeeeee', 'border-color': '#616161', 'shape': 'rectangle' } },
    { selector: 'node.fragment', style: { 'background-color': '#e1d5f0', 'border-color': '#5e35b1', 'border-width': 3,
        'border-style': 'double', 'shape': 'rectangle', 'font-weight': 'bold', 'color': '#311b92' } },
    { selector: 'node.cluster', style: { 'background-color': '#ede7f6', 'background-opacity': 0.35, 'border-color': '#5e35b1',
        'border-style': 'dashed', 'border-width': 1.2, 'label': 'data(label)', 'text-valign': 'top', 'text-halign': 'center',
        'font-weight': 'bold', 'color': '#4527a0', 'padding': 14, 'shape': 'round-rectangle',
        'text-halign': 'right', 'text-margin-x': 0, 'text-margin-y': 0, 'text-background-color': '#ffffff', 'text-background-opacity': 0.85 } },
    { selector: 'node.copy', style: { 'border-style': 'dashed' } },
    { selector: 'node.error', style: { 'background-color': '#ffcdd2', 'border-color': '#c62828', 'border-width': 3.5, 'color': '#b71c1c', 'shape': 'octagon' } },
    { selector: 'edge', style: { 'width': 1.2, 'line-color': '#78909c', 'target-arrow-color': '#78909c', 'target-arrow-shape': 'triangle',
        'curve-style': 'bezier', 'arrow-scale': 0.8, 'label': 'data(label)', 'font-size': 9, 'color': '#37474f',
        'text-background-color': '#ffffff', 'text-background-opacity': 0.9, 'text-background-padding': 1, 'text-rotation': 'none',
        'text-wrap': 'wrap' } },
    { selector: 'edge.noshape', style: { 'label': '' } },
    { selector: '.match', style: { 'border-color': '#ff9800', 'border-width': 4 } },
    { selector: 'node:selected', style: { 'overlay-color': '#ffeb3b', 'overlay-opacity': 0.35, 'overlay-padding': 4 } },
    { selector: 'edge.near', style: { 'line-color': '#1e88e5', 'target-arrow-color': '#1e88e5', 'width': 2.2 } },
    { selector: '.linked', style: { 'border-color': '#ff6d00', 'border-width': 4, 'overlay-color': '#ff9100', 'overlay-opacity': 0.2 } }
  ];

  var layoutOptions = { name: 'dagre', rankDir: 'TB', nodeSep: 36, rankSep: 50, edgeSep: 12, animate: false, nodeDimensionsIncludeLabels: false };
  var status = document.getElementById('status');
  // The lowering pane takes its room before the NNEF graph measures its own.
  if (lowering) document.getElementById('lowering-pane').hidden = false;
  // Graphviz's boxes are for 10 pt Helvetica; the page's labels are larger (box()): the positions
  // are spread to make room.
  var firstLayout = preset ? { name: 'preset', fit: true, padding: 20,
                                positions: function (node) { var q = preset[node.id()]; return q ? { x: q[0] * 1.4, y: q[1] * 1.3 } : undefined; } }
                            : Object.assign({ fit: true, padding: 20 }, layoutOptions);
  var cy = cytoscape({ container: document.getElementById('nnef'), elements: elements(), style: style,
                       layout: firstLayout, minZoom: 0.01, maxZoom: 4, wheelSensitivity: 0.3 });

  // The most nodes the page lays out (nnef/draw/html.hpp, max_page_items).
  var maxNodes = Number(document.body.getAttribute('data-max-nodes')) || Infinity;
  // Draws the elements of the current expansion; false (nothing changed) when they are too many.
  function redraw(anchorId) {
    var kept = preset;
    preset = null;  // the new view is laid out here, each node once
    var els = elements(), drawn = 0;
    els.forEach(function (e) { if (e.group === 'nodes' && e.classes !== 'cluster') drawn++; });
    if (drawn > maxNodes) {
      status.textContent = 'not opened: ' + drawn + ' nodes to draw, more than ' + maxNodes + ', the most this page lays out';
      preset = kept;
      elements();  // repOf as drawn
      return false;
    }
    var before = anchorId && cy.getElementById(anchorId).length ? cy.getElementById(anchorId).renderedPosition() : null;
    var keep = cy.$(':selected').map(function (e) { return e.id(); });
    cy.batch(function () {
      cy.elements().remove();
      cy.add(els);
    });
    cy.layout(Object.assign({ fit: false }, layoutOptions)).run();
    applyShapes();
    keep.forEach(function (id) { cy.getElementById(id).select(); });
    var anchor = anchorId && cy.getElementById(anchorId);
    if (before && anchor && anchor.length) {
      var after = anchor.renderedPosition();
      cy.panBy({ x: before.x - after.x, y: before.y - after.y });
    }
    showCount();
    return true;
  }
  function showCount() {
    status.textContent = cy.nodes().not('.cluster').length + ' nodes, ' + cy.edges().length + ' edges';
  }

  // ---- expand / collapse ----------------------------------------------------------------------
  function setExpanded(cid, on) {
    if (on) chain(cid).forEach(function (a) { expanded[a] = true; });
    else expanded[cid] = false;
  }
  function saved() { var s = {}; Object.keys(expanded).forEach(function (k) { s[k] = expanded[k]; }); return s; }
  function restore(s) { Object.keys(s).forEach(function (k) { expanded[k] = s[k]; }); }
  function toggle(cid) {
    var s = saved();
    setExpanded(cid, !expanded[cid]);
    if (!redraw(cid)) { restore(s); return; }
    select(cid);
  }
  document.getElementById('expand-all').onclick = function () {
    var s = saved();
    clusters.forEach(function (c) { expanded[c.id] = true; });
    if (!redraw()) { restore(s); return; }
    cy.fit(undefined, 20);
  };
  document.getElementById('collapse-all').onclick = function () { clusters.forEach(function (c) { expanded[c.id] = false; }); redraw(); cy.fit(undefined, 20); };
  document.getElementById('fit').onclick = function () { cy.fit(undefined, 20); };
  var shapes = document.getElementById('shapes');
  function applyShapes() { cy.edges().toggleClass('noshape', !shapes.checked); }
  shapes.onchange = applyShapes;

  // ---- the side panel -------------------------------------------------------------------------
  var panel = document.getElementById('panel-body');
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function table(rows) {
    var t = el('table');
    rows.forEach(function (r) {
      if (r[1] === undefined || r[1] === null || r[1] === '') return;
      var tr = el('tr');
      tr.appendChild(el('td', r[0]));
      var td = el('td');
      if (r[1] instanceof Node) td.appendChild(r[1]); else td.textContent = String(r[1]);
      tr.appendChild(td);
      t.appendChild(tr);
    });
    return t;
  }
  function locationText(l) { return l ? l.file + ':' + l.line + ':' + l.column : ''; }
  function link(text, id) {
    var a = el('a', text);
    a.setAttribute('data-target', id);
    a.onclick = function () { reveal(id); };
    return a;
  }
  function tensorRows(prefix, e) {
    return [[prefix, e.tensor], ['dtype', e.dtype], ['shape', shapeText(e.shape)], ['quantization', quantText(e.quantization)]];
  }
  function showNode(n) {
    panel.innerHTML = '';
    var h = el('h2', n.name);
    panel.appendChild(h);
    panel.appendChild(el('span', n.kind, 'kind'));
    if (n.error) { panel.appendChild(el('h3', 'error')); panel.appendChild(el('div', n.error, 'error')); }
    var t = n.tensor || {};
    var fragments = chain(n.cluster).map(function (c) { return clusterById[c].fragment; }).reverse().join(' \u203a ');
    panel.appendChild(table([['operation', n.op], ['source', locationText(n.location)], ['in fragment', fragments]]));
    var attrs = n.attributes || {}, keys = Object.keys(attrs);
    if (keys.length) {
      panel.appendChild(el('h3', 'attributes'));
      panel.appendChild(table(keys.map(function (k) { return [k, attrs[k]]; })));
    }
    panel.appendChild(el('h3', 'result'));
    panel.appendChild(table([['dtype', t.dtype], ['shape', shapeText(t.shape)], ['bytes', t.bytes !== undefined && t.bytes !== null ? t.bytes + ' (' + bytesText(t.bytes) + ')' : ''],
                             ['quantization', quantText(t.quantization)]]));
    var ins = edges.filter(function (e) { return e.to === n.id; }), outs = edges.filter(function (e) { return e.from === n.id; });
    if (ins.length) {
      panel.appendChild(el('h3', 'inputs'));
      ins.forEach(function (e) { var src = nodeById[e.from]; panel.appendChild(table(tensorRows('tensor', e).concat([['from', src ? link(src.name, src.id) : e.from]]))); });
    }
    if (outs.length) {
      panel.appendChild(el('h3', 'consumers'));
      var ul = el('ul');
      outs.forEach(function (e) { var d = nodeById[e.to]; var li = el('li'); li.appendChild(d ? link(d.op + ' ' + d.name, d.id) : el('span', e.to)); ul.appendChild(li); });
      panel.appendChild(ul);
    }
    showLinksOf([n.id]);
  }
  function nodesUnder(cid) {
    var r = (members[cid] || []).slice();
    (children[cid] || []).forEach(function (c) { r = r.concat(nodesUnder(c)); });
    return r;
  }
  function showCluster(c) {
    panel.innerHTML = '';
    panel.appendChild(el('h2', c.label || c.fragment));
    panel.appendChild(el('span', expanded[c.id] ? 'fragment (expanded)' : 'fragment (collapsed)', 'kind'));
    panel.appendChild(table([['fragment', c.fragment], ['source', locationText(c.location)],
                             ['in fragment', chain(c.parent).map(function (p) { return clusterById[p].fragment; }).reverse().join(' \u203a ')]]));
    var b = el('button', expanded[c.id] ? 'collapse' : 'expand');
    b.type = 'button';
    b.id = 'panel-toggle';
    b.onclick = function () { toggle(c.id); };
    panel.appendChild(b);
    panel.appendChild(el('h3', 'contains'));
    var ul = el('ul');
    (children[c.id] || []).forEach(function (k) { var li = el('li'); li.appendChild(link(clusterById[k].fragment, k)); ul.appendChild(li); });
    (members[c.id] || []).forEach(function (id) { var d = nodeById[id]; var li = el('li'); li.appendChild(link(d.op + ' ' + d.name, id)); ul.appendChild(li); });
    panel.appendChild(ul);
    showLinksOf(nodesUnder(c.id));
  }
  function select(id) {
    cy.$(':selected').unselect();
    cy.edges().removeClass('near');
    var e = cy.getElementById(id);
    if (e.length) { e.select(); e.connectedEdges().addClass('near'); }
    if (clusterById[id]) showCluster(clusterById[id]);
    else if (nodeById[id]) showNode(nodeById[id]);
  }
  // Shows a node (expanding its fragments), selects and centres it.
  function reveal(id) {
    var n = nodeById[id], c = clusterById[id];
    var cid = n ? n.cluster : c ? c.parent : null;
    var hidden = chain(cid).some(function (a) { return !expanded[a]; });
    if (hidden) {
      var s = saved();
      setExpanded(cid, true);
      if (!redraw()) { restore(s); return; }
    }
    select(id);
    var e = cy.getElementById(id);
    if (e.length) cy.animate({ center: { eles: e }, zoom: Math.max(cy.zoom(), 0.9) }, { duration: 200 });
  }
  cy.on('tap', 'node', function (evt) {
    var id = evt.target.data('copyOf') || evt.target.id();
    if (clusterById[id] && !expanded[id]) toggle(id);  // a collapsed fragment opens in place
    else if (clusterById[id]) { select(id); }
    else select(id);
  });
  cy.on('dbltap', 'node.cluster', function (evt) { toggle(evt.target.id()); });

  // ---- search ---------------------------------------------------------------------------------
  var search = document.getElementById('search'), count = document.getElementById('search-count');
  var matches = [], current = -1;
  function find(q) {
    q = q.trim().toLowerCase();
    if (!q) return [];
    var r = [];
    nodes.forEach(function (n) { if (String(n.name).toLowerCase().indexOf(q) >= 0 || String(n.op).toLowerCase() === q) r.push(n.id); });
    clusters.forEach(function (c) { if (String(c.label || c.fragment).toLowerCase().indexOf(q) >= 0) r.push(c.id); });
    return r;
  }
  function markMatches() {
    cy.elements().removeClass('match');
    matches.forEach(function (id) {
      var n = nodeById[id];
      var shown = cy.getElementById(n ? repOf[id] : id);
      shown.addClass('match');
    });
  }
  search.addEventListener('input', function () {
    matches = find(search.value);
    current = -1;
    markMatches();
    count.textContent = search.value.trim() ? matches.length + ' found' : '';
  });
  search.addEventListener('keydown', function (evt) {
    if (evt.key !== 'Enter' || !matches.length) return;
    current = (current + 1) % matches.length;
    reveal(matches[current]);
    markMatches();
    count.textContent = (current + 1) + ' of ' + matches.length;
  });

  // ---- lowering ---------------------------------------------------------------------------------
  var tcy = null, vpu = document.getElementById('vpu');
  function showLinksOf(ids) {
    if (!lowering || !lowering.tosa) return;
    var tosa = {}, tasks = {};
    ids.forEach(function (id) {
      var l = (lowering.links || {})[id];
      if (!l) return;
      (l.tosa || []).forEach(function (t) { tosa[t] = true; });
      (l.tasks || []).forEach(function (t) { tasks[t] = true; });
    });
    if (tcy) {
      tcy.nodes().removeClass('linked');
      var hit = tcy.nodes().filter(function (n) { return tosa[n.id()]; });
      hit.addClass('linked');
      if (hit.length) tcy.animate({ center: { eles: hit }, zoom: Math.max(tcy.zoom(), 0.7) }, { duration: 200 });
    }
    var first = null, n = 0;
    vpu.querySelectorAll('g[data-task]').forEach(function (g) {
      var on = !!tasks[g.getAttribute('data-task')];
      g.classList.toggle('linked', on);
      if (on) { n++; if (!first) first = g; }
    });
    vpu.classList.toggle('has-links', n > 0);
    if (first) {
      var r = first.getBoundingClientRect(), v = vpu.getBoundingClientRect();
      vpu.scrollLeft += r.left - v.left - v.width / 3;
    }
    var summary = document.getElementById('links-summary');
    if (!summary) { summary = el('p', '', 'hint'); summary.id = 'links-summary'; panel.appendChild(summary); }
    summary.textContent = 'lowered to ' + Object.keys(tosa).length + ' TOSA operators and ' + n + ' VPU tasks (highlighted)';
  }
  if (lowering) {
    if (lowering.error) {
      var err = document.getElementById('lowering-error');
      err.hidden = false;
      err.textContent = lowering.error;
    }
    if (lowering.tosa) {
      var tels = [];
      lowering.tosa.nodes.forEach(function (t) {
        var label = t.kind === 'operation' ? t.op + (t.label ? '\n' + clip(t.label, 26) : '') : t.kind + ' ' + clip(t.label, 22) + '\n' + t.type;
        var b = box(label);
        tels.push({ group: 'nodes', data: { id: t.id, label: label, w: b.w, h: b.h, node: t.node }, classes: t.kind });
      });
      lowering.tosa.edges.forEach(function (e, i) { tels.push({ group: 'edges', data: { id: 'te' + i, source: e.from, target: e.to, label: '' } }); });
      tcy = cytoscape({ container: document.getElementById('tosa'), elements: tels, style: style,
                        layout: Object.assign({ fit: true, padding: 20 }, layoutOptions), minZoom: 0.02, maxZoom: 4, wheelSensitivity: 0.3 });
      tcy.on('tap', 'node', function (evt) {
        var t = lowering.tosa.nodes.filter(function (x) { return x.id === evt.target.id(); })[0];
        if (t && t.node) reveal(t.node);
        if (t) showTosa(t);
      });
    } else {
      document.getElementById('tosa').hidden = true;
      document.getElementById('tosa-title').textContent = 'Lowering';
    }
    if (lowering.vpu && lowering.vpu.svg) {
      vpu.innerHTML = lowering.vpu.svg;
      var taskNode = {};
      (lowering.vpu.tasks || []).forEach(function (t) { taskNode[String(t.id)] = t.node; });
      vpu.addEventListener('click', function (evt) {
        var g = evt.target.closest && evt.target.closest('g[data-task]');
        if (g && taskNode[g.getAttribute('data-task')]) reveal(taskNode[g.getAttribute('data-task')]);
      });
    } else {
      vpu.hidden = true;
      document.getElementById('vpu-title').hidden = true;
    }
  }
  function showTosa(t) {
    var h = el('h3', 'TOSA ' + t.op);
    panel.appendChild(h);
    var attrs = t.attributes || {};
    panel.appendChild(table([['outputs', (t.outputs || []).join('; ')]].concat(Object.keys(attrs).map(function (k) { return [k, attrs[k]]; }))));
  }

  applyShapes();
  showCount();
  var ms = Math.round(performance.now() - started);
  status.textContent += ', drawn in ' + ms + ' ms';
  window.nnefDraw = { cy: cy, tosa: tcy, picture: picture, expanded: expanded, reveal: reveal, toggle: toggle, renderMs: ms };
  document.body.setAttribute('data-ready', String(ms));
})();
