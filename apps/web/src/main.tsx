import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api.js';
import { ApiProvider } from './api-context.js';
import { App } from './app.js';
import { captureResetToken } from './reset-token.js';
import { SessionProvider } from './session.js';
import './styles.css';

// Before anything renders: a reset link's token leaves the address bar at once (see reset-token.ts).
captureResetToken();
// The releases list puts back its own scroll position after Back (it may need to load pages first).
window.history.scrollRestoration = 'manual';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <ApiProvider api={createApi()}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </ApiProvider>
  </StrictMode>,
);
