import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'maplibre-gl/dist/maplibre-gl.css';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { call, setCsrfToken, whenSignedOut } from './api';
import { DataPage } from './pages/data';
import { ClustersPage } from './pages/clusters';
import { ImportsPage } from './pages/imports';
import { IsochronesPage } from './pages/isochrones';
import { KeysPage } from './pages/keys';
import { MapPage } from './pages/map';
import { OptimizePage } from './pages/optimize';
import { PoisPage } from './pages/pois';
import { RoutingPage } from './pages/routing';
import { SignInPage } from './pages/sign-in';
import { UsagePage } from './pages/usage';

export interface SessionInfo {
  user: { id: string; email: string };
  team: { id: string; name: string; plan: string; plan_active: boolean };
  csrf_token: string;
}

/** Pages by path under /dashboard/ (the server lists the same paths in DASHBOARD_PAGES). */
const PAGES: Array<{ path: string; label: string; view: (p: { session: SessionInfo }) => any }> = [
  { path: 'keys', label: 'API keys', view: KeysPage },
  { path: 'usage', label: 'Usage', view: UsagePage },
  { path: 'pois', label: 'POIs', view: PoisPage },
  { path: 'map', label: 'Map', view: MapPage },
  { path: 'routing', label: 'Routing', view: RoutingPage },
  { path: 'isochrones', label: 'Isochrones', view: IsochronesPage },
  { path: 'clusters', label: 'Clusters', view: ClustersPage },
  { path: 'optimize', label: 'Optimize', view: OptimizePage },
  { path: 'data', label: 'Attributes & categories', view: DataPage },
  { path: 'imports', label: 'Imports', view: ImportsPage },
];

const currentPath = () => location.pathname.replace(/^\/dashboard\/?/, '').replace(/\/$/, '');

export function navigate(path: string): void {
  history.pushState(null, '', `/dashboard/${path}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [path, setPath] = useState(currentPath());

  useEffect(() => {
    const onPop = () => setPath(currentPath());
    addEventListener('popstate', onPop);
    whenSignedOut(() => setSession(null));
    call<{ data: SessionInfo }>('GET', '/session').then(
      (r) => {
        setCsrfToken(r.data.csrf_token);
        setSession(r.data);
      },
      () => setSession(null),
    );
    return () => removeEventListener('popstate', onPop);
  }, []);

  if (session === undefined)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (session === null) {
    return (
      <SignInPage
        onSignedIn={(s) => {
          setCsrfToken(s.csrf_token);
          setSession(s);
          if (path === '' || path === 'sign-in') navigate('keys');
        }}
      />
    );
  }

  const page = PAGES.find((p) => p.path === path) ?? PAGES[0];
  const signOut = async () => {
    try {
      await call('DELETE', '/session');
    } finally {
      setSession(null);
      navigate('sign-in');
    }
  };
  // On a phone the menu is one band that scrolls sideways: the current page's link is brought into it.
  useEffect(() => {
    document.querySelector('header.top nav a[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [page]);
  const View = page.view;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Waymark</span>
        <nav aria-label="Dashboard">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a
                  href={`/dashboard/${p.path}`}
                  aria-current={p === page ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(p.path);
                  }}
                >
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {session.user.email} · {session.team.name}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <View key={page.path} session={session} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
