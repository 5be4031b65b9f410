package scenario

import (
	"fmt"
	"strings"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// FeaturesFor returns the feature set the scenario runs with on kernel k:
// k's own defaults (features.Preset) with the scenario's features
// statements applied in file order, then extra (debugfs tokens, e.g. a
// --features flag; may be empty). For the modelled kernel this is
// sc.Features with extra applied. A token that turns on a SCHED_FEAT the
// version does not have is an error naming the version; the seed toggles
// may be turned on under any version, as experiments.
func (sc *Scenario) FeaturesFor(k eevdf.Kernel, extra string) (features.Set, error) {
	if k == eevdf.KernelV73 {
		return sc.Features.Apply(extra)
	}
	s, err := features.Preset(k.String())
	if err != nil {
		return s, err
	}
	if s, err = s.Apply(strings.Join(sc.FeatureTokens, " ")); err != nil {
		return s, err
	}
	if s, err = s.Apply(extra); err != nil {
		return s, err
	}
	for _, f := range features.All() {
		if s.Has(f) && !features.Exists(k.String(), f) {
			return s, fmt.Errorf("features: %v has no %v", k, f)
		}
	}
	return s, nil
}
