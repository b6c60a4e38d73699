// Package scene turns a simulator timeline (referee/sim) into what a
// webcam above the table would see, frame by frame, with the ground truth
// of every frame, for end-to-end tests of the vision pipeline and for the
// demo.
//
// The table is a procedural surface (wood, felt, a checked cloth or a
// pale laminate, chosen from the seed) with four ArUco markers
// (DICT_4X4_50, ids 0..3 clockwise from the top-left corner) printed on
// sheets taped to its corners, the players' seats round its edge (each
// with its Ligretto stack, row and counted-off pile, face up) and a centre
// area where piles lie in a loose grid. Players' arms reach in to play:
// a card leaves its seat TravelMinMS..TravelMaxMS before its play event,
// travels in a hand, lands at the event's time with a small offset and
// turn, and the hand stays over the pile a moment before it withdraws.
// A player who reaches far leans in over the table.
//
// The camera is a tilted pinhole with barrel distortion, a vignette, a
// slowly drifting light (brightness, colour temperature, a gradient), a
// soft response curve, slight defocus and sensor noise, optionally JPEG
// compressed.
//
// Time follows the timeline: the match starts at 0 ms. Before it, from
// Start() (negative) to 0, runs the calibration preamble: the empty table
// for a few seconds, then each player in turn lays one card back in their
// seat zone, lets it lie alone for a moment and takes it back. After each
// round's stop (or deadlock) comes, CountDelay later, the count: the
// centre cards face down in groups by back, and each player's remaining
// stack spread face down in their zone, until the next round is dealt.
//
// Use:
//
//	s, err := scene.New(scene.DefaultConfig(), players, seed)
//	for _, e := range events { err = s.Apply(e) }   // or as a live clock advances
//	mat := gocv.NewMat(); defer mat.Close()
//	truth, err := s.Render(tMS, &mat)                // BGR frame and ground truth
//
// Render, RenderRGBA and RenderBGR draw any time in any order; a frame
// depends only on the events and the seed. In live use, apply the events
// up to the clock and render clock - Lookahead(). Clip and RenderClip give
// the frames of a whole match at a fixed rate (the video of
// `ligretto simulate --render`).
//
// The ground truth of a frame lists every visible centre pile top (its
// face, its corners in image pixels and table millimetres, and how much of
// it a hand, an arm or a card in flight hides), the card back shown in the
// preamble, and the backs laid out for the count. Geometry gives the
// markers' corners, the seats, the centre area and the camera.
//
// Rendering works on a table-plane canvas (cards, hands and shadows are
// drawn there) that one fixed-point cv::remap per frame warps through the
// camera; the still cards are redrawn only when something lands or leaves
// a seat. A Scene holds no gocv Mats; Render writes into the caller's.
package scene
