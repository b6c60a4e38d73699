'use strict';
// Watching the table from the LiveKit room it is published to, with
// LiveKit's browser client (vendored under /static/vendor/livekit-client and
// loaded only by a page that watches from a room). GET /api/room hands out
// the room's address and a viewer token that lets the page subscribe and do
// nothing else; the page publishes nothing.

class RoomError extends Error {
  constructor(status, message) { super(message || `HTTP ${status}`); this.status = status; }
}

const LigrettoRoom = (() => {
  const clientURL = '/static/vendor/livekit-client/livekit-client.umd.js';
  // What the referee's stream/livekit publisher names its video and topic.
  const trackName = 'table';
  const stateTopic = 'state';
  let loading = null;

  // loadClient adds the vendored client's script once; it defines the
  // global LivekitClient.
  function loadClient() {
    if (window.LivekitClient) return Promise.resolve(window.LivekitClient);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = clientURL;
        s.onload = () => (window.LivekitClient ? resolve(window.LivekitClient) : reject(new Error('The LiveKit client did not load.')));
        s.onerror = () => { loading = null; s.remove(); reject(new Error('The LiveKit client did not load.')); };
        document.head.append(s);
      });
    }
    return loading;
  }

  // fetchJoin asks this server for a fresh viewer token: {url, room, token}.
  async function fetchJoin() {
    const res = await fetch('/api/room', { cache: 'no-store' });
    let body = null;
    try { body = await res.json(); } catch { /* an error page */ }
    if (!res.ok) throw new RoomError(res.status, (body && body.error) || `HTTP ${res.status}`);
    if (!body || !body.url || !body.token) throw new RoomError(502, 'The server named no room.');
    return body;
  }

  // A Viewer watches the room and tells the page what it sees through its
  // handlers:
  //   onView(view, detail): 'connecting'; 'live' (the referee's track is
  //     attached to the video element); 'away' (in the room, but the
  //     referee's track is not: it was unpublished or the referee left);
  //     'reconnecting' (LiveKit recovers the connection, or the page joins
  //     again in detail.in seconds after a disconnection); 'unavailable'
  //     (this server publishes to no room: nothing to retry).
  //   onState(state): the game state of a message on the "state" topic.
  //   onJoin(join): joined with this {url, room, token}.
  class Viewer {
    constructor(video, handlers) {
      this.video = video;
      this.h = handlers || {};
      this.room = null;
      this.track = null;      // the referee's video track while subscribed
      this.referee = null;    // the identity of the participant publishing it
      this.attempt = 0;
      this.timer = null;
      this.closed = false;
      this.decoder = new TextDecoder();
    }

    view(v, detail) {
      this.current = v;
      if (!this.closed && this.h.onView) this.h.onView(v, detail || {});
    }

    // start joins the room, with join when the page already fetched one.
    async start(join) {
      clearTimeout(this.timer);
      this.drop();
      const me = this.generation = (this.generation || 0) + 1;
      this.view('connecting');
      try {
        const LK = await loadClient();
        LK.setLogLevel('warn');
        const j = join || await fetchJoin();
        if (this.closed || me !== this.generation) return;
        const room = new LK.Room({ adaptiveStream: false, dynacast: false });
        this.room = room;
        this.listen(LK, room);
        await room.connect(j.url, j.token, { autoSubscribe: true });
        if (this.closed || room !== this.room) { room.disconnect(); return; }
        this.attempt = 0;
        if (this.h.onJoin) this.h.onJoin(j);
        this.findReferee(LK);
      } catch (err) {
        if (this.closed || me !== this.generation) return;
        if (err instanceof RoomError && err.status === 404) {
          this.drop();
          this.view('unavailable', { reason: err.message });
          return;
        }
        console.warn('LiveKit room:', err);
        this.again(err instanceof RoomError ? `The server said: ${err.message}.` : 'The room cannot be reached.');
      }
    }

    listen(LK, room) {
      const E = LK.RoomEvent;
      const mine = () => room === this.room && !this.closed;
      room
        .on(E.TrackSubscribed, (track, pub, participant) => {
          if (!mine() || pub.trackName !== trackName || track.kind !== LK.Track.Kind.Video) return;
          this.attach(track, participant.identity);
        })
        .on(E.TrackUnsubscribed, (track) => { if (mine() && track === this.track) this.away(); })
        .on(E.TrackUnpublished, (pub, participant) => {
          if (mine() && pub.trackName === trackName && participant.identity === this.referee) this.away();
        })
        .on(E.ParticipantDisconnected, (participant) => {
          if (mine() && participant.identity === this.referee) this.away();
        })
        .on(E.DataReceived, (payload, _participant, _kind, topic) => {
          if (!mine() || topic !== stateTopic) return;
          let m;
          try { m = JSON.parse(this.decoder.decode(payload)); } catch { return; }
          if (m && m.type === 'state' && this.h.onState) this.h.onState(m.state);
        })
        // The signal connection recovers first (a resume), then, if that
        // fails, the whole connection (a restart): both are reconnecting.
        .on(E.SignalReconnecting, () => { if (mine()) this.view('reconnecting', {}); })
        .on(E.Reconnecting, () => { if (mine()) this.view('reconnecting', {}); })
        .on(E.Reconnected, () => { if (mine()) this.findReferee(LK); })
        .on(E.Disconnected, (reason) => {
          if (!mine()) return;
          this.again(reason === LK.DisconnectReason.ROOM_DELETED ? 'The room was closed.' : 'The connection to the room was lost.');
        });
    }

    // findReferee attaches the referee's track if it is subscribed
    // already, and says the referee is away if nobody publishes it.
    findReferee(LK) {
      if (!this.room) return;
      let subscribing = false;
      for (const p of this.room.remoteParticipants.values()) {
        for (const pub of p.trackPublications.values()) {
          if (pub.trackName !== trackName || pub.kind !== LK.Track.Kind.Video) continue;
          if (pub.track) { this.attach(pub.track, p.identity); return; }
          this.referee = p.identity; // TrackSubscribed follows
          subscribing = true;
        }
      }
      if (this.track) this.view('live');
      else if (!subscribing) this.view('away');
    }

    attach(track, identity) {
      if (this.track && this.track !== track) this.track.detach(this.video);
      this.track = track;
      this.referee = identity;
      track.attach(this.video);
      this.view('live');
    }

    away() {
      if (this.track) this.track.detach(this.video);
      this.track = null;
      this.view('away');
    }

    // again leaves the room and joins again with a fresh token in a few
    // seconds (2, 4, 6 … 10 s, with jitter).
    again(reason) {
      this.drop();
      const delay = Math.min(10, 2 + 2 * this.attempt) * (0.8 + 0.4 * Math.random());
      this.attempt = Math.min(this.attempt + 1, 4);
      this.view('reconnecting', { reason, in: Math.ceil(delay) });
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.start(), delay * 1000);
    }

    // drop leaves the room, if in one, and forgets its track.
    drop() {
      const room = this.room;
      this.room = null;
      if (this.track) this.track.detach(this.video);
      this.track = null;
      if (room) room.disconnect().catch(() => {});
    }

    close() {
      this.closed = true;
      clearTimeout(this.timer);
      this.drop();
    }

    // framesDecoded counts the frames decoded from the referee's track, as
    // WHEPViewer.framesDecoded does for the local stream.
    async framesDecoded() {
      const r = this.track && this.track.receiver;
      if (!r) return 0;
      let n = 0;
      const stats = await r.getStats();
      stats.forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'video') n = s.framesDecoded || 0; });
      return n;
    }

    // live reports whether the referee's track plays now.
    live() { return !this.closed && this.current === 'live' && !!this.track; }
  }

  return { Viewer, fetchJoin, loadClient };
})();
