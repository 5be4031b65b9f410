package features_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/features"
)

func ExampleParse() {
	s, err := features.Parse("NO_RUN_TO_PARITY PLACE_JOIN_LAG")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Has(features.RunToParity), s.Has(features.PlaceLag), s.Has(features.PlaceJoinLag))
	fmt.Println(s.Diff(features.Default()))
	// Output:
	// false true true
	// NO_RUN_TO_PARITY PLACE_JOIN_LAG
}
