package livekit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/livekit/protocol/auth"
)

// Join is what a spectator's page needs to watch the room.
type Join struct {
	URL   string `json:"url"`
	Room  string `json:"room"`
	Token string `json:"token"`
}

// ViewerToken makes a token that lets one spectator subscribe to the room
// and nothing else: no tracks, no data, no metadata of its own. Viewers
// are hidden, so that a room of hundreds does not tell each about all.
func ViewerToken(c Config) (Join, error) {
	c = c.withDefaults()
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return Join{}, err
	}
	no, yes := false, true
	tok, err := auth.NewAccessToken(c.APIKey, c.APISecret).
		SetIdentity("viewer-" + hex.EncodeToString(id)).
		SetValidFor(c.ViewerTTL).
		SetVideoGrant(&auth.VideoGrant{
			RoomJoin: true, Room: c.Room, Hidden: true,
			CanSubscribe: &yes, CanPublish: &no, CanPublishData: &no, CanUpdateOwnMetadata: &no,
		}).ToJWT()
	if err != nil {
		return Join{}, fmt.Errorf("viewer token: %w", err)
	}
	return Join{URL: c.ViewerURL, Room: c.Room, Token: tok}, nil
}

// publisherToken lets the referee publish video and data in the room; it
// subscribes to nothing.
func publisherToken(c Config, ttl time.Duration) (string, error) {
	no, yes := false, true
	return auth.NewAccessToken(c.APIKey, c.APISecret).
		SetIdentity(c.Identity).SetName("Ligretto referee").
		SetValidFor(ttl).
		SetVideoGrant(&auth.VideoGrant{
			RoomJoin: true, Room: c.Room,
			CanSubscribe: &no, CanPublish: &yes, CanPublishData: &yes,
		}).ToJWT()
}
