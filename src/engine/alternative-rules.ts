// What makes an alternative route acceptable (issue 36). Stretch: GraphHopper's alternative_route
// `max_weight_factor` of 1.4 (at most 1.4 × the fastest route's duration). Sharing: the limited-sharing rule
// of Abraham, Delling, Goldberg and Werneck, "Alternative Routes in Road Networks" (ACM JEA 18, 2013), with
// their γ = 0.8 (at most 80 % of the fastest route's length shared); OSRM's MLD alternatives are stricter
// (kAtMostLongerBy 0.25, kAtMostSameBy 0.75). Both are checked for every pair of routes answered.
export const ALT_STRETCH = 1.4;
export const ALT_SHARE = 0.8;
