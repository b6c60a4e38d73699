// Package tiles renders the tile-laying Ligretto of rulebook 002
// (referee/tiles) as a webcam above the table sees it, frame by frame,
// with the ground truth of every frame, for the tile game's vision and
// its end-to-end tests. It is render/scene's sibling and draws on a
// scene.Stage: the same table surfaces, ArUco corner markers, players
// round the table with their arms, camera, light, noise and frame timing.
//
// On the table lies the board: its parts (4x4 fields of the four Ligretto
// colours, printed as render/card prints the faces) as square tiles laid
// out per the round's Layout, each a few millimetres from its neighbours
// and turned by up to a degree and a half, seeded, as real parts lie.
// Fields are FieldMM square. A card covers its two fields, printed with
// their two colours, and carries its owner's frame along its border: one
// line (plain), two lines (double), dashes (dashed) or dots (dotted); a
// joker covers one field, in the four colours in quarters with a white
// star, in its owner's frame. The four stones are black discs with a
// small shadow. A card or joker lies on its fields' grid with a seeded
// jitter of about a millimetre and a degree.
//
// Players' arms reach in to play: a card travels in a hand for
// TravelMS before its lay event, lands at the event's time, and the same
// hand then carries the stone onto it and withdraws. A player who turns a
// card that fits nowhere sometimes reaches over the board and takes the
// hand back (a hand over the board that lays nothing).
//
// Time follows the timeline (referee/tiles/sim): the match starts at 0
// ms; before it, from Start() (negative), the empty table is shown for
// the calibration preamble. Use:
//
//	s, err := tiles.New(scene.DefaultConfig(), players, seed)
//	for _, e := range events { err = s.Apply(e) }
//	truth, err := s.Render(tMS, &mat)
//
// Clip and RenderClip give a whole match at a fixed rate; Visible says,
// for every event, the first frame on which its result can be seen whole
// (not under a hand): what the vision's tests compare times with.
package tiles
