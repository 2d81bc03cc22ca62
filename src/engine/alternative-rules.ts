// What makes an alternative route acceptable (issue 36). Stretch: GraphHopper's alternative_route
// `max_weight_factor` of 1.4 (at most 1.4 × the fastest route's duration). Sharing: the limited-sharing rule
// of Abraham, Delling, Goldberg and Werneck, "Alternative Routes in Road Networks" (ACM JEA 18, 2013), with
// their γ = 0.8 (at most 80 % of the fastest route's length shared); OSRM's MLD alternatives are stricter
// (kAtMostLongerBy 0.25, kAtMostSameBy 0.75). Both are checked for every pair of routes answered.
export const ALT_STRETCH = 1.4;
export const ALT_SHARE = 0.8;
// Local optimality (Abraham et al.'s T-test, with their α = 0.25, as OSRM's CH alternatives use it): the part
// of an alternative within α × the fastest route's duration either side of its via node is a shortest path.
export const ALT_LOCAL = 0.25;
// Work bounds of the via-node search (route-core.ts, viaAlternatives): candidates kept per alternative
// asked for, and via paths unpacked at most.
export const ALT_CANDIDATES = 3;
export const ALT_UNPACKED = 24;
