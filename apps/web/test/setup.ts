import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// Each test starts from an empty document and the app's root URL.
afterEach(() => {
  cleanup();
  window.history.replaceState(null, '', '/');
});
