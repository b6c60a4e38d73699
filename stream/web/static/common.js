'use strict';
// Rendering shared by the spectator page and the console. Everything that
// comes from the server is put into the page as text, never as HTML.

const Ligretto = (() => {
  const phases = {
    no_match: 'Waiting for a match',
    between_rounds: 'Between rounds',
    playing: 'Playing',
    counting: 'Counting cards',
    match_over: 'Match over',
  };
  const statusNames = {
    ok: 'OK', inferred: 'Inferred', violation: 'Foul', late: 'Late', override: 'Corrected',
    undone: 'Undone', scored: 'Scored', warning: 'Check', info: 'Info',
  };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }

  function phaseName(p) { return phases[p] || p || '–'; }

  // A stable colour for a back design's name.
  function backColour(name) {
    let h = 0;
    for (const c of String(name)) h = (h * 31 + c.codePointAt(0)) % 360;
    return `hsl(${h} 55% 55%)`;
  }

  // unsure: the IDs of the piles whose top the camera reads unsure now
  // (the state's "unsure"): shown as "?" until it reads them sure.
  function renderPiles(box, piles, mini, unsure) {
    box.replaceChildren();
    if (!piles || piles.length === 0) {
      box.append(el('p', { class: 'empty', text: 'No piles yet.' }));
      return;
    }
    for (const p of piles) {
      const doubt = (unsure || []).includes(p.id);
      const c = doubt ? {} : (p.top || {});
      const card = el('div', {
        class: `card c-${c.colour || 'none'}${p.closed ? ' closed' : ''}${p.violations ? ' fouled' : ''}${doubt ? ' unsure' : ''}`,
        title: doubt ? `Pile ${p.id}: its top card is not read sure yet, ${p.cards} card(s)`
          : `Pile ${p.id}: ${c.colour} ${c.number}, ${p.cards} card(s)${p.violations ? `, ${p.violations} foul(s)` : ''}${p.closed ? ', closed' : ''}`,
      },
      el('span', { class: 'pid', text: `#${p.id}` }),
      el('span', { class: 'num', text: String(c.number ?? '?') }),
      mini ? null : el('span', { class: 'cnt', text: p.closed ? 'closed' : `${p.cards} card${p.cards === 1 ? '' : 's'}` }),
      p.violations ? el('span', { class: 'foul', text: `⚠ ${p.violations}` }) : null);
      box.append(card);
    }
  }

  function timeOf(t) {
    const d = new Date(t);
    return isNaN(d) ? '' : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  }

  function renderFeed(list, feed, limit) {
    list.replaceChildren();
    const items = (feed || []).slice(-limit).reverse();
    if (items.length === 0) {
      list.append(el('li', { class: 'empty', text: 'Nothing yet.' }));
      return;
    }
    for (const f of items) {
      list.append(el('li', { class: `item s-${f.status}${f.unsure ? ' unsure' : ''}` },
        el('span', { class: 'chip', text: statusNames[f.status] || f.status }),
        f.rule ? el('span', { class: 'rule', text: f.unsure ? `${f.rule}?` : f.rule, title: f.unsure ? `Rule ${f.rule}, unsure: ${f.unsure}` : `Rule ${f.rule}` }) : null,
        el('span', { class: 'reason', text: f.reason }),
        el('span', { class: 'when', text: `R${f.round} · ${timeOf(f.time)}` })));
    }
  }

  const signed = (n) => (n === undefined || n === null ? '–' : (n > 0 ? `+${n}` : String(n)));

  // The tile game's scoreboard (rulebook 002; the state's "tiles"): each
  // player's frame style, cards laid of those in play (and jokers), the
  // round's points (provisional while counting), the total, and the rule
  // of every wrong play this round. The rank column only when !mini.
  function renderTilesScores(body, st, mini) {
    body.replaceChildren();
    const m = st.match || {};
    const players = ((st.tiles && st.tiles.players) || []).slice().sort((a, b) => b.total - a.total);
    if (players.length === 0) {
      body.append(el('tr', {}, el('td', { colspan: mini ? '4' : '5', class: 'empty', text: 'No match yet.' })));
      return;
    }
    const counting = st.phase === 'counting';
    players.forEach((p, i) => {
      const frame = el('span', { class: `frame frame-${p.frame}`, title: `frame: ${p.frame}` });
      const faults = (p.faults || []).map((f) => el('span', { class: 'fault', text: f.rule, title: f.reason }));
      const laid = `${p.laid}/${p.in_play}`;
      body.append(el('tr', { class: `${m.winner === p.name ? 'winner' : ''}${m.leader === p.name ? ' leader' : ''}`, 'data-player': p.name },
        mini ? null : el('td', { class: 'rank', text: String(i + 1) }),
        el('td', { class: 'player' }, el('div', { class: 'tname' }, frame, el('span', { class: 'name', text: p.name }),
          el('span', { class: 'style', text: p.frame }), ...faults)),
        el('td', { class: 'num laid', text: laid, title: `${p.laid} of ${p.in_play} cards laid${p.jokers ? `, ${p.jokers} joker(s)` : ''}` },
          p.jokers ? el('span', { class: 'jokers', text: ` ★${p.jokers}` }) : null),
        el('td', { class: `num round ${counting ? 'live' : 'last'}`, text: signed(p.points), title: counting ? 'provisional: counting' : 'last round' }),
        el('td', { class: 'num total', text: String(p.total) })));
    });
  }

  // The banner of a tile round's end or the match's.
  function tilesBanner(st) {
    const m = st.match || {};
    if (m.over) return m.winner ? `${m.winner} wins the match` : 'The match is over, level at the top';
    if (st.phase !== 'counting') return '';
    return st.deadlock ? 'Nobody can lay a card: the most cards laid wins the round' : `Ligretto Stopp${st.stopped_by ? ` by ${st.stopped_by}` : ''}!`;
  }

  function setMatchLine(st) {
    const m = st.match || {};
    const set = (id, v) => { const e = document.getElementById(id); if (e) e.textContent = v; };
    set('phase', phaseName(st.phase));
    set('round', st.round ? String(st.round) : '–');
    set('target', m.active ? (m.settings.rounds ? `${m.settings.rounds} rounds` : String(m.settings.target)) : '–');
    const phase = document.getElementById('phase');
    if (phase) phase.dataset.phase = st.phase || '';
  }

  return { el, phaseName, backColour, renderPiles, renderFeed, setMatchLine, timeOf, signed, renderTilesScores, tilesBanner };
})();
