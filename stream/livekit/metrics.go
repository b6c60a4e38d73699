package livekit

import "github.com/prometheus/client_golang/prometheus"

func (p *Publisher) register(r prometheus.Registerer) error {
	count := func(name, help string, v func() uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(v()) })
	}
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ligretto_livekit_live", Help: "1 while the video is published to the LiveKit room."},
			func() float64 {
				if p.Live() {
					return 1
				}
				return 0
			}),
		count("ligretto_livekit_joins_total", "Times the publisher joined the LiveKit room.", p.joins.Load),
		count("ligretto_livekit_frames_sent_total", "Encoded frames sent to the LiveKit room.", p.sent.Load),
		count("ligretto_livekit_frames_dropped_total", "Encoded frames dropped on the way to the LiveKit room.", p.dropped.Load),
	} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}
