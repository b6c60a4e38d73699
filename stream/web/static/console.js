'use strict';
// The operator console: every action is a call to the control API with
// the operator token; the state comes back in the answer and over the
// live view's DataChannel.
(() => {
  const { el, renderPiles, renderFeed, setMatchLine } = Ligretto;
  const $ = (id) => document.getElementById(id);
  const KEY = 'ligretto-operator-token';
  let token = sessionStorage.getItem(KEY) || '';
  let backs = [];
  let state = null;
  let viewer = null;
  let statusTimer = null;
  let previewURL = null;

  async function api(method, path, body) {
    const opts = { method, headers: { Authorization: `Bearer ${token}` } };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    if (res.status === 401) {
      const err = new Error('the operator token was refused');
      err.status = 401;
      throw err;
    }
    const type = res.headers.get('Content-Type') || '';
    const data = type.startsWith('application/json') ? await res.json() : await res.blob();
    if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
    return data;
  }

  function log(ok, text) {
    const list = $('log');
    if (list.querySelector('.empty')) list.replaceChildren();
    list.prepend(el('li', { class: `item ${ok ? 's-ok' : 's-violation'}` },
      el('span', { class: 'chip', text: ok ? 'Done' : 'Refused' }),
      el('span', { class: 'reason', text }),
      el('span', { class: 'when', text: Ligretto.timeOf(new Date()) })));
    while (list.children.length > 30) list.lastChild.remove();
  }

  async function act(label, path, body) {
    try {
      const res = await api('POST', path, body);
      if (res.state) render(res.state);
      log(true, label);
    } catch (e) {
      if (e.status === 401) lock('The operator token was refused.');
      else log(false, `${label}: ${e.message}`);
    }
  }

  function lock(msg) {
    token = '';
    sessionStorage.removeItem(KEY);
    if (viewer) viewer.close();
    viewer = null;
    clearInterval(statusTimer);
    $('desk').hidden = true;
    $('lock').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = msg || '';
    $('stats').textContent = '';
  }

  async function unlock() {
    try {
      const st = await api('GET', '/api/status');
      backs = st.back_designs || [];
      showStats(st);
    } catch (e) {
      lock(`Could not unlock: ${e.message}.`);
      return;
    }
    sessionStorage.setItem(KEY, token);
    $('login').hidden = true;
    $('desk').hidden = false;
    $('lock').hidden = false;
    render(await api('GET', '/api/state'));
    refreshPreview();
    refreshTable();
    refreshPhone();
    watch();
    statusTimer = setInterval(() => api('GET', '/api/status').then(showStats).catch((e) => { if (e.status === 401) lock('The operator token was refused.'); }), 2000);
  }

  let lastStats = null;
  function showStats(st) {
    let rate = '';
    if (lastStats && st.uptime_s > lastStats.uptime_s) {
      const dt = st.uptime_s - lastStats.uptime_s;
      const fps = (st.frames_in - lastStats.frames_in) / dt;
      const kbps = (8 * (st.encoded_bytes - lastStats.encoded_bytes)) / dt / 1000;
      rate = ` · ${fps.toFixed(0)} fps in · ${kbps.toFixed(0)} kbit/s out`;
    }
    lastStats = st;
    const size = st.width ? ` · ${st.width}×${st.height}` : '';
    $('stats').textContent = `${st.viewers}/${st.max_viewers} viewers${size}${rate}`;
  }

  function watch() {
    if (viewer) viewer.close();
    const pill = $('live-status');
    const set = (k, t) => { pill.className = `pill small ${k}`; pill.textContent = t; };
    set('wait', 'connecting');
    viewer = new WHEPViewer('/whep', {
      onTrack: (s) => { $('video').srcObject = s; $('video').play().catch(() => {}); },
      onState: render,
      onConnection: (st) => {
        if (st === 'connected') set('live', 'live');
        else if (st === 'failed' || st === 'closed') { set('down', 'down'); setTimeout(() => { if (token) watch(); }, 3000); }
      },
    });
    viewer.start().catch((e) => { set('down', e.status === 503 ? 'full' : 'down'); setTimeout(() => { if (token) watch(); }, 5000); });
  }

  function render(st) {
    if (!st || (state && st.version < state.version)) return;
    state = st;
    setMatchLine(st);
    renderPiles($('mini-piles'), st.piles, true, st.unsure);
    renderFeed($('feed'), st.feed, 15);
    // Who can call stop: the match's players.
    const sel = $('stop-player');
    const keep = sel.value;
    // The tile game (rulebook 002) names who stopped, has no piles,
    // backs or undo, its camera begins rounds, and a round can end with
    // nobody able to lay (T6a).
    const tiles = st.game === 'tiles';
    sel.replaceChildren(...(tiles ? [] : [el('option', { value: '', text: '(unknown)' })]), ...(st.players || []).map((p) => el('option', { value: p.name, text: p.name })));
    sel.value = keep;
    if (sel.selectedIndex < 0 && sel.options.length) sel.selectedIndex = 0;
    $('start-round').disabled = tiles || st.phase !== 'between_rounds';
    $('undo').disabled = tiles;
    $('stop').disabled = st.phase !== 'playing';
    $('noplay-row').hidden = !tiles;
    $('noplay').disabled = st.phase !== 'playing';
    $('override').hidden = tiles;
    $('override-title').hidden = tiles;
    renderRoster(st.roster || []);
  }

  function renderRoster(roster) {
    const body = $('roster');
    if (document.activeElement && body.contains(document.activeElement)) return; // do not disturb a choice
    body.replaceChildren();
    for (const p of roster) {
      const sel = el('select', { 'aria-label': `Back of ${p.name}` },
        ...[...new Set([p.back, ...backs])].map((b) => el('option', { value: b, text: b })));
      sel.value = p.back;
      const btn = el('button', { class: 'btn small', type: 'button', text: 'Enrol' });
      btn.addEventListener('click', () => act(`${p.name} enrolled with back ${sel.value}`, '/api/enrol', { player: p.name, back: sel.value }));
      body.append(el('tr', {}, el('td', { text: p.name }), el('td', {}, sel), el('td', {}, btn)));
    }
  }

  async function refreshPreview() {
    try {
      const blob = await api('GET', '/api/calibration.png');
      if (previewURL) URL.revokeObjectURL(previewURL);
      previewURL = URL.createObjectURL(blob);
      $('preview').src = previewURL;
      $('preview').hidden = false;
      $('preview-empty').hidden = true;
    } catch {
      $('preview').hidden = true;
      $('preview-empty').hidden = false;
    }
  }

  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    token = $('token').value.trim();
    $('token').value = '';
    unlock();
  });
  $('lock').addEventListener('click', () => lock(''));
  $('start-round').addEventListener('click', () => act('Round started', '/api/round'));
  $('undo').addEventListener('click', () => act('Last observation taken back', '/api/undo'));
  $('stop').addEventListener('click', () => {
    const p = $('stop-player').value;
    act(`Stop called${p ? ` by ${p}` : ''}`, '/api/stop', { player: p });
  });
  $('noplay').addEventListener('click', () => act('Nobody can lay: the round ends', '/api/noplay'));
  $('override').addEventListener('submit', (e) => {
    e.preventDefault();
    const pile = Number($('ov-pile').value);
    const card = { colour: $('ov-colour').value, number: Number($('ov-number').value) };
    act(`Pile ${pile} corrected to ${card.colour} ${card.number}`, '/api/override', { pile, card });
  });
  $('match').addEventListener('submit', (e) => {
    e.preventDefault();
    const n = Number($('m-players').value);
    const roster = (state && state.roster) || [];
    const used = new Set();
    const players = [];
    for (let i = 0; i < n; i++) {
      const r = roster[i];
      const name = r ? r.name : `P${i + 1}`;
      let back = r ? r.back : '';
      if (!back || used.has(back)) back = backs.find((b) => !used.has(b)) || `back${i + 1}`;
      used.add(back);
      players.push({ name, back });
    }
    const settings = {
      target: Number($('m-target').value),
      rounds: Number($('m-rounds').value) || 0,
      deadlock: document.querySelector('input[name=deadlock]:checked').value,
      advanced: $('m-advanced').checked,
    };
    if (state && state.match && state.match.active && !state.match.over &&
        !confirm('A match is in progress. Start a new one?')) return;
    act(`New match: ${n} players, ${settings.rounds ? `${settings.rounds} rounds` : `target ${settings.target}`}, deadlock ${settings.deadlock}${settings.advanced ? ', advanced' : ''}`, '/api/match', { players, settings });
  });
  // The table: how its calibration goes, and the actions on it.
  let tableShown = false;
  function showTable(t) {
    const pill = $('table-state');
    pill.textContent = t.calibrated ? 'refereeing' : 'calibrating';
    pill.className = `pill small ${t.calibrated ? 'live' : 'wait'}`;
    $('table-prompt').textContent = t.prompt || t.stage || '';
    $('table-markers').textContent = `${t.markers} of 4 markers seen`;
    const names = t.players || [];
    $('table-enrolled').textContent = names.length
      ? `enrolled: ${names.slice(0, t.enrolled).join(', ') || 'none yet'}${t.enrolled < names.length ? `; next: ${names[t.enrolled]}` : ''}`
      : `${t.enrolled} enrolled`;
    $('table-source').textContent = `${t.source || 'source'}${t.width ? ` ${t.width}×${t.height}` : ''}, ${t.frames} frames`;
    if (!tableShown && names.length && !$('cal-players').value) $('cal-players').value = names.join(', ');
    tableShown = true;
  }
  async function refreshTable() {
    try {
      showTable(await api('GET', '/api/table'));
      $('table-panel').hidden = false;
    } catch (e) {
      if (e.status === 401) lock('The operator token was refused.');
      else $('table-panel').hidden = true; // this server has no table (501)
    }
  }
  $('calibrate').addEventListener('submit', async (e) => {
    e.preventDefault();
    const players = $('cal-players').value.split(',').map((p) => p.trim()).filter(Boolean);
    try {
      showTable(await api('POST', '/api/table/calibrate', { players }));
      log(true, `Calibrating again for ${players.join(', ')}`);
    } catch (err) {
      log(false, `Calibrate again: ${err.message}`);
    }
  });
  $('cal-save').addEventListener('click', async () => {
    try {
      const res = await fetch('/api/table/calibration.json', { headers: { Authorization: `Bearer ${token}` } });
      if (!res.ok) throw new Error((await res.json()).error || `HTTP ${res.status}`);
      const url = URL.createObjectURL(await res.blob());
      const a = el('a', { href: url, download: 'calibration.json' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      log(true, 'Calibration saved');
    } catch (err) {
      log(false, `Save calibration: ${err.message}`);
    }
  });
  $('cal-load').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    e.target.value = '';
    if (!file) return;
    try {
      const res = await fetch('/api/table/calibration.json', {
        method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: await file.text(),
      });
      const data = await res.json();
      if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
      showTable(data);
      log(true, `Calibration loaded from ${file.name}`);
    } catch (err) {
      log(false, `Load calibration: ${err.message}`);
    }
  });
  setInterval(() => { if (token && !document.hidden) refreshTable(); }, 1000);

  // The phone camera: its link as a QR code, and whether it publishes.
  let qrURL = null;
  let phoneLink = '';
  async function refreshPhone() {
    let link;
    try {
      link = await api('GET', '/api/camera/link');
    } catch (e) {
      if (e.status === 401) lock('The operator token was refused.');
      $('phone-panel').hidden = true; // no phone camera on this server
      return;
    }
    $('phone-panel').hidden = false;
    const pill = $('phone-state');
    pill.textContent = link.live ? 'publishing' : 'waiting for the phone';
    pill.className = `pill small ${link.live ? 'live' : 'wait'}`;
    if (link.url === phoneLink) return;
    phoneLink = link.url;
    $('phone-link').href = link.url;
    $('phone-link').textContent = link.url;
    try {
      const blob = await api('GET', '/api/camera/qr.png');
      if (qrURL) URL.revokeObjectURL(qrURL);
      qrURL = URL.createObjectURL(blob);
      $('phone-qr').src = qrURL;
    } catch { /* the link text is still there */ }
  }
  $('phone-new').addEventListener('click', async () => {
    if (!confirm('Make a new camera link? The phone on the old one is cut off.')) return;
    try {
      await api('POST', '/api/camera/token');
      log(true, 'New camera link: scan the new QR code');
      refreshPhone();
    } catch (e) {
      log(false, `New camera link: ${e.message}`);
    }
  });
  setInterval(() => { if (token && !document.hidden) refreshPhone(); }, 2000);

  $('refresh-preview').addEventListener('click', refreshPreview);
  setInterval(() => { if (token && !document.hidden) refreshPreview(); }, 5000);
  window.addEventListener('pagehide', () => { if (viewer) viewer.close(); });

  if (token) unlock(); else lock('');
  // (A token kept from earlier in this tab unlocks at once.)
})();
