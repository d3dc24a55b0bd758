import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api.js';
import { ApiProvider } from './api-context.js';
import { App } from './app.js';
import { SessionProvider } from './session.js';
import './styles.css';

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
