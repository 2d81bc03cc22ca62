// The layers of src/ (docs/architecture.md), lowest first: a module may import its own folder and the
// layers below it, never one above. `npm run check` runs this (npx depcruise src).
const LAYERS = [
  ['lib', '^src/lib/'],
  ['db', '^src/db/'],
  ['map', '^src/map/'],
  ['config', '^src/config\\.ts$'],
  ['compute', '^src/compute/'],
  ['engine', '^src/engine/'],
  ['auth', '^src/auth/'],
  ['jobs', '^src/jobs/'],
  ['http', '^src/http/'],
  ['geocoding', '^src/geocoding/'],
  ['api', '^src/api/'],
  ['edges', '^src/(dashboard|ops|docs)/'],
  ['wiring', '^src/(app|compute-thread|job-kinds)\\.ts$'],
  ['cli', '^src/cli/'],
];

const upward = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `${name}-imports-no-higher-layer`,
  comment: `${name} sits below ${LAYERS.slice(i + 1).map(([n]) => n).join(', ')}`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => p) },
}));

// The map build's stages, in the order they run (docs/architecture.md, "Map build"): a stage takes what
// the ones before it made and imports nothing of a later one.
const STAGES = [
  ['osm', '^src/map/osm/'],
  ['graphs', '^src/map/graphs/'],
  ['geocoder', '^src/map/geocoder/'],
  ['tiles', '^src/map/tiles/'],
];
const forward = STAGES.slice(0, -1).map(([name, path], i) => ({
  name: `map-${name}-imports-no-later-stage`,
  comment: `the map build's ${name} stage runs before ${STAGES.slice(i + 1).map(([n]) => n).join(', ')}`,
  severity: 'error',
  from: { path },
  to: { path: STAGES.slice(i + 1).map(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    ...upward,
    ...forward,
    {
      name: 'engine-no-http',
      comment: 'the engine answers in plain values and errors; turning them into HTTP is api/',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/(http|api)/|uWebSockets|uws-js' },
    },
    {
      name: 'resource-stores-are-private',
      comment: "a resource's store.ts is its own SQL: another folder reads the shared piece from a module made for it",
      severity: 'error',
      from: { path: '^src/api/([^/]+)/' },
      to: { path: '^src/api/([^/]+)/store\\.ts$', pathNot: '^src/api/$1/' },
    },
    {
      name: 'stores-stay-in-api',
      comment: "outside api/, only the CLI (which runs the same operations) reads a resource's store: the dashboard mounts a resource's routes",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(api|cli)/' },
      to: { path: '^src/api/[^/]+/store\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'no import cycle, of any length',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-dev-deps-in-src',
      comment: 'the service runs from dependencies only (npm ci --omit=dev in the Dockerfile)',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
