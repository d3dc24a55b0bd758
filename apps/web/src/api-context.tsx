import { createContext, useContext, type ReactNode } from 'react';
import type { Api } from './api.js';

const ApiContext = createContext<Api | null>(null);

/** Hands the API to every page; tests pass a fake one. */
export function ApiProvider({ api, children }: { api: Api; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi needs an <ApiProvider> above it');
  return api;
}
