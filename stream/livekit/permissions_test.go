package livekit_test

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"ligretto/stream/livekit"
	"ligretto/stream/livekit/lktest"
	"ligretto/stream/livekit/lkviewer"
)

// TestViewerToken_CannotPublishOrSendData: a spectator's token lets it
// watch and nothing else. Publishing a track is refused, and a forged
// state message reaches no other viewer, while the referee's do.
func TestViewerToken_CannotPublishOrSendData(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-perm")
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)

	forged := []byte(`{"type":"state","state":{"version":999999}}`)
	var sawForged atomic.Bool
	honest := joinViewer(t, tb.cfg, lkviewer.Options{OnState: func(b []byte) {
		if bytes.Equal(b, forged) {
			sawForged.Store(true)
		}
	}})
	rogue := joinViewer(t, tb.cfg, lkviewer.Options{})
	waitFor(t, "both viewers get the track", 10*time.Second, func() bool {
		return honest.Stats().Frames > 0 && rogue.Stats().Frames > 0
	})

	track, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rogue.Room().LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{Name: livekit.TrackName}); err == nil {
		t.Error("a viewer token published a track")
	}
	for i := 0; i < 5; i++ {
		// The SDK may refuse, or send and have the server drop it.
		_ = rogue.Room().LocalParticipant.PublishDataPacket(lksdk.UserData(forged),
			lksdk.WithDataPublishReliable(true), lksdk.WithDataPublishTopic(livekit.StateTopic))
	}
	before := honest.Stats().StateMessages
	if err := tb.game.NewMatch(matchOfTwo()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the referee's state after the forged one", 5*time.Second, func() bool {
		return honest.Stats().StateMessages > before
	})
	time.Sleep(500 * time.Millisecond)
	if sawForged.Load() {
		t.Error("a viewer's data message reached another viewer")
	}
	for _, p := range honest.Room().GetRemoteParticipants() {
		if p.Identity() != "referee" {
			t.Errorf("viewer %q is visible to other viewers (viewers are hidden)", p.Identity())
		}
	}
}
