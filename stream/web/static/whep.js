'use strict';
// A small WHEP client: POST the offer, PATCH trickled candidates, DELETE
// on close. It also opens the "state" DataChannel the server fills.

class WHEPError extends Error {
  constructor(status, message) { super(message || `HTTP ${status}`); this.status = status; }
}

class WHEPViewer {
  constructor(url, handlers) {
    this.url = url;
    this.h = handlers || {};
    this.pc = null;
    this.location = null;
    this.etag = null;
    this.closed = false;
  }

  async start() {
    const pc = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    this.pc = pc;
    pc.addTransceiver('video', { direction: 'recvonly' });
    const dc = pc.createDataChannel('state');
    dc.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch { return; }
      if (m && m.type === 'state' && this.h.onState) this.h.onState(m.state);
    };
    dc.onclose = () => { if (!this.closed && this.h.onStateClosed) this.h.onStateClosed(); };
    pc.ontrack = (e) => { if (this.h.onTrack) this.h.onTrack(e.streams[0] || new MediaStream([e.track])); };
    pc.onconnectionstatechange = () => { if (!this.closed && this.h.onConnection) this.h.onConnection(pc.connectionState); };
    const pending = [];
    pc.onicecandidate = (e) => {
      if (this.closed) return;
      const line = e.candidate && e.candidate.candidate ? e.candidate : null;
      if (this.location) this.trickle(line ? [line] : [], !line);
      else if (line) pending.push(line);
    };
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const res = await fetch(this.url, { method: 'POST', headers: { 'Content-Type': 'application/sdp' }, body: offer.sdp });
    const text = await res.text();
    if (res.status !== 201) throw new WHEPError(res.status, text.trim());
    if (this.closed) return;
    this.location = new URL(res.headers.get('Location'), res.url).toString();
    this.etag = res.headers.get('ETag');
    await pc.setRemoteDescription({ type: 'answer', sdp: text });
    if (pending.length) this.trickle(pending, pc.iceGatheringState === 'complete');
  }

  // trickle sends candidates as an SDP fragment (RFC 8840). Failures do not
  // matter: the server's own candidates are in its answer.
  trickle(cands, end) {
    const sdp = this.pc.localDescription ? this.pc.localDescription.sdp : '';
    const ufrag = (sdp.match(/a=ice-ufrag:(.*)/) || [])[1];
    const pwd = (sdp.match(/a=ice-pwd:(.*)/) || [])[1];
    if (!ufrag) return;
    let frag = `a=ice-ufrag:${ufrag.trim()}\r\na=ice-pwd:${(pwd || '').trim()}\r\n`;
    const mid = (cands[0] && cands[0].sdpMid) || '0';
    frag += `m=video 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:${mid}\r\n`;
    for (const c of cands) frag += `a=${c.candidate}\r\n`;
    if (end) frag += 'a=end-of-candidates\r\n';
    const headers = { 'Content-Type': 'application/trickle-ice-sdpfrag' };
    if (this.etag) headers['If-Match'] = this.etag;
    fetch(this.location, { method: 'PATCH', headers, body: frag }).catch(() => {});
  }

  close() {
    this.closed = true;
    if (this.pc) this.pc.close();
    if (this.location) fetch(this.location, { method: 'DELETE', keepalive: true }).catch(() => {});
    this.location = null;
  }

  async framesDecoded() {
    if (!this.pc) return 0;
    let n = 0;
    const stats = await this.pc.getStats();
    stats.forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'video') n = s.framesDecoded || 0; });
    return n;
  }
}
