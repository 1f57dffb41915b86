'use strict';
// Tandem dashboard: polls the JSON API of `tandem dashboard` and renders it. No dependencies.
(function () {
  const $ = (id) => document.getElementById(id);
  const REFRESH_MS = 2000;

  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (attrs) Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    return e;
  }
  function row(cells) {
    const tr = el('tr');
    cells.forEach((c) => {
      const td = el('td');
      if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? '' : String(c);
      tr.appendChild(td);
    });
    return tr;
  }
  function fill(tableId, rows) {
    const body = $(tableId).querySelector('tbody');
    body.replaceChildren(...rows);
  }
  async function get(path) {
    const r = await fetch(path, { headers: authHeaders() });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.status);
    return body;
  }
  function authHeaders() {
    const t = $('token').value.trim();
    return t ? { Authorization: 'Bearer ' + t } : {};
  }
  async function act(path, body) {
    const result = $('action-result');
    body.operator = $('operator').value.trim() || 'anonymous';
    const r = await fetch(path, {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
      body: JSON.stringify(body),
    });
    const answer = await r.json();
    if (r.ok) {
      result.textContent = answer.done + ' ' + answer.target + ': done';
      result.className = 'done';
    } else {
      result.textContent = (r.status === 401 ? 'refused: ' : 'failed: ') + answer.error;
      result.className = 'refused';
    }
    refresh();
  }
  function age(seconds) {
    if (seconds < 60) return seconds.toFixed(1) + ' s';
    if (seconds < 3600) return (seconds / 60).toFixed(1) + ' min';
    return (seconds / 3600).toFixed(1) + ' h';
  }
  function chart(id, values) {
    const svg = $(id);
    const max = Math.max(1, ...values);
    const step = values.length > 1 ? 360 / (values.length - 1) : 0;
    const points = values.map((v, i) => (i * step).toFixed(1) + ',' + (95 - (v / max) * 85).toFixed(1)).join(' ');
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('points', points);
    const label = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    label.setAttribute('x', '2'); label.setAttribute('y', '9');
    label.textContent = 'max ' + max;
    svg.replaceChildren(line, label);
  }

  async function overview() {
    const o = await get('/api/overview');
    $('pending').textContent = o.pending;
    $('oldest').textContent = age(o.oldestPendingSeconds);
    $('quarantined').textContent = o.quarantined;
    $('quarantined').parentElement.classList.toggle('alert', o.quarantined > 0);
    $('skipped').textContent = o.skipped;
    $('published').textContent = o.published;
    $('stranded').textContent = o.strandedPartitions;
    $('stranded').parentElement.classList.toggle('alert', o.strandedPartitions > 0);
    $('relays').textContent = o.relays.length;
    const tiles = Object.entries(o.sagas).map(([status, n]) => {
      const t = el('div', null, { class: 'tile' + (status === 'STUCK' && n > 0 ? ' alert' : '') });
      t.appendChild(el('span', status.toLowerCase(), { class: 'label' }));
      const v = el('span', n, { class: 'value', id: 'sagas-' + status });
      t.appendChild(v);
      t.addEventListener('click', () => sagaList(status));
      return t;
    });
    $('saga-tiles').replaceChildren(...tiles);
    cdc(o.cdc);
    inDoubt(o.inDoubt);
    fill('consumer-table', Object.entries(o.consumers).map(([name, c]) => {
      const a = el('a', name);
      a.addEventListener('click', () => consumer(name));
      return row([a, c.deadLetters, c.gaps]);
    }));
  }
  function bytes(n) {
    if (n < 0) return 'no slot';
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1024 / 1024).toFixed(1) + ' MiB';
  }
  function cdc(c) {
    $('cdc').hidden = !c;
    if (!c) return;
    $('cdc-slot').textContent = c.slot;
    $('cdc-active').textContent = c.exists === undefined ? '?' : (c.active ? 'yes' : 'no');
    $('cdc-lag').textContent = c.lagBytes === undefined ? '?' : bytes(c.lagBytes);
    $('cdc-lag').parentElement.classList.toggle('alert', !!c.lagging);
    $('cdc-last').textContent = c.lastPublishedAt || 'never';
    $('cdc-problem').textContent = c.problem || '';
  }
  function inDoubt(x) {
    $('in-doubt').hidden = !x;
    if (!x) return;
    $('xa-problem').textContent = x.error || (x.participants || [])
      .filter((p) => p.error).map((p) => p.name + ': ' + p.error).join('; ');
    const branches = x.branches || [];
    const mine = branches.filter((b) => !b.foreign);
    $('xa-count').textContent = mine.length;
    $('xa-count').parentElement.classList.toggle('alert', mine.length > 0);
    $('xa-oldest').textContent = x.oldest_in_doubt_ms === null || x.oldest_in_doubt_ms === undefined
      ? 'none' : age(x.oldest_in_doubt_ms / 1000);
    fill('xa-table', branches.map((b) => row([b.participant, b.xid, b.foreign ? 'foreign' : b.node,
      b.age_ms === null ? '?' : age(b.age_ms / 1000), b.foreign ? '-' : (b.decision || 'none (presumed abort)'),
      (b.locks || []).join(', ')])));
  }
  async function history() {
    const h = await get('/api/history');
    chart('chart-pending', h.map((p) => p.pending));
    chart('chart-age', h.map((p) => p.oldestPendingSeconds));
    chart('chart-published', h.map((p) => p.publishedSinceLast));
  }
  async function quarantine() {
    const q = await get('/api/quarantined');
    fill('quarantine', q.map((e) => {
      const buttons = el('span');
      const replay = el('button', 'replay', { 'data-event': e.eventId, class: 'replay' });
      replay.addEventListener('click', () => act('/api/outbox/replay', { eventId: e.eventId }));
      const skip = el('button', 'skip', { 'data-event': e.eventId, class: 'skip' });
      skip.addEventListener('click', () => {
        const reason = window.prompt('Why skip ' + e.eventId + '? (recorded with the event)');
        if (reason) act('/api/outbox/skip', { eventId: e.eventId, reason: reason });
      });
      buttons.append(replay, ' ', skip);
      const err = el('span', e.errorClass + ': ' + e.lastError);
      return row([e.eventId, e.aggregateType + '/' + e.aggregateId + ' v' + e.aggregateVersion,
        e.eventType, err, e.quarantinedAt, buttons]);
    }));
  }
  async function consumer(name) {
    const [dead, gaps] = await Promise.all([
      get('/api/dead-letters?consumer=' + encodeURIComponent(name)),
      get('/api/gaps?consumer=' + encodeURIComponent(name)),
    ]);
    const d = $('consumer-detail');
    const t1 = el('table');
    t1.appendChild(row(['dead letter', 'reason', 'event', 'aggregate', 'since']));
    dead.forEach((x) => t1.appendChild(row([x.id, x.reasonClass + ': ' + x.reason, x.eventType,
      x.aggregateType + '/' + x.aggregateId + ' v' + x.aggregateVersion, x.deadAt])));
    const t2 = el('table');
    t2.appendChild(row(['gap', 'waiting for', 'parked', 'waiting', 'why']));
    gaps.forEach((g) => t2.appendChild(row([g.aggregateType + '/' + g.aggregateId, 'v' + g.waitingFor,
      g.parked, age(g.waiting), g.explanation])));
    d.replaceChildren(el('h3', name + ': dead letters (replay or discard in the application: they need its handlers)'), t1,
      el('h3', name + ': gaps'), t2);
  }
  async function sagaList(status) {
    const list = await get('/api/sagas' + (status ? '?status=' + status : ''));
    fill('saga-table', list.map((s) => {
      const a = el('a', s.id);
      a.addEventListener('click', () => saga(s.id));
      return row([a, s.type, s.status, s.currentStep, s.startedAt]);
    }));
  }
  async function saga(id) {
    const s = await get('/api/saga?id=' + encodeURIComponent(id));
    const d = $('saga-detail');
    const t = el('table');
    t.appendChild(row(['#', 'step', 'kind', 'attempt', 'command', 'outcome', 'started', 'ended']));
    s.steps.forEach((x) => t.appendChild(row([x.seq, x.step, x.compensation ? 'compensation' : 'forward',
      x.attempt, x.command, x.outcome, x.startedAt, x.endedAt])));
    const parts = [el('h3', 'saga ' + s.id + ' — ' + s.status + (s.lastError ? ' — ' + s.lastError : '')), t];
    if (s.status === 'STUCK') {
      const b = el('button', 'retry stuck', { id: 'retry-stuck' });
      b.addEventListener('click', () => act('/api/saga/retry-stuck', { sagaId: s.id }));
      parts.push(b);
    }
    d.replaceChildren(...parts);
  }
  async function trail(correlationId) {
    const entries = await get('/api/trail?correlationId=' + encodeURIComponent(correlationId));
    fill('trail-table', entries.map((e) => row([e.service, e.eventType, e.aggregateType + '/' + e.aggregateId
      + ' v' + e.aggregateVersion, e.occurredAt, e.publishedAt,
      (e.consumedBy || []).map((c) => Object.values(c).join(' ')).join('; ')])));
  }
  async function actions() {
    const list = await get('/api/actions');
    fill('action-table', list.map((a) => row([a.at, a.operator, a.remote, a.action, a.target,
      a.outcome + (a.detail ? ' (' + a.detail + ')' : '')])));
  }

  async function refresh() {
    try {
      await Promise.all([overview(), history(), quarantine(), actions()]);
      $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      $('updated').textContent = 'cannot read the dashboard API: ' + e.message;
    }
  }
  document.addEventListener('DOMContentLoaded', () => {
    $('trail-form').addEventListener('submit', (ev) => { ev.preventDefault(); trail($('correlation').value.trim()); });
    refresh();
    sagaList(null);
    setInterval(refresh, REFRESH_MS);
  });
})();
