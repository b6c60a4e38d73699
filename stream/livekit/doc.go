// Package livekit publishes the referee's view to a LiveKit room, so that
// an SFU on other machines carries the video to many spectators and the
// referee's machine sends it once.
//
// A Publisher is a stream.Relay: the stream server encodes each frame once
// and hands it to its own viewers and to the publisher, which writes it to
// a VP8 track in the room and sends the game state as reliable data
// messages on the topic "state" (the DataChannel's JSON), after each change
// and again every 3 s for viewers who joined since. It joins again
// by itself after a server restart or a network loss; while it is away,
// frames are dropped and the referee goes on.
//
// ViewerToken makes the token a spectator's page joins with: subscribe
// only, hidden from the other viewers. The stream server hands it out at
// GET /api/room (stream.Config.RoomJoin), and its spectator page, opened as
// /?via=room, watches the room with LiveKit's browser client.
package livekit
