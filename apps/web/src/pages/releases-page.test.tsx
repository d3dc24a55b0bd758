import { BadRequestError } from '@releases/client';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, release } from '../../test/fake-api.js';
import type { Api, ReleasePageResult } from '../api.js';
import { ApiProvider } from '../api-context.js';
import type { ReleaseQuery } from '../release-query.js';
import { ReleasesPage } from './releases-page.js';

function renderPage(api: Api, url = '/') {
  window.history.replaceState(null, '', url);
  return render(
    <ApiProvider api={api}>
      <ReleasesPage />
    </ApiProvider>,
  );
}

/** A `releases` that answers from a table of pages keyed by cursor, and records every call. */
function pagedReleases(pages: Record<string, ReleasePageResult>) {
  const calls: Array<{ query: ReleaseQuery; cursor: string | undefined }> = [];
  const releases = vi.fn((query: ReleaseQuery, cursor: string | undefined) => {
    calls.push({ query, cursor });
    const page = pages[cursor ?? ''];
    return page ? Promise.resolve(page) : Promise.reject(new Error(`no page for cursor ${cursor}`));
  });
  return { releases, calls };
}

const articleTitles = () =>
  screen.queryAllByRole('article').map((article) => within(article).getByRole('heading').textContent);

describe('filters and the URL', () => {
  it('reads the filters and sort from the URL it was opened with', async () => {
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    renderPage(fakeApi({ releases }), '/?genres=rock&languages=ja&sort=release_date');

    expect(await screen.findByRole('article', { name: 'Song 1' })).toBeTruthy();
    expect(calls[0]?.query).toEqual({ vocaloid_banks: [], genres: ['rock'], languages: ['ja'], sort: 'release_date' });
    const genres = screen.getByRole('group', { name: 'Genres' });
    expect((await within(genres).findByRole<HTMLInputElement>('checkbox', { name: 'rock' })).checked).toBe(true);
    expect(within(genres).getByRole<HTMLInputElement>('checkbox', { name: 'electropop' }).checked).toBe(false);
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Sort' }).value).toBe('release_date');
  });

  it('puts each choice in the URL as a new history entry, and Back restores the previous choice', async () => {
    const user = userEvent.setup();
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    renderPage(fakeApi({ releases }));
    await screen.findByRole('article', { name: 'Song 1' });
    const banks = screen.getByRole('group', { name: 'Voice banks' });
    const lengthBefore = window.history.length;

    await user.click(await within(banks).findByRole('checkbox', { name: 'Hatsune Miku' }));
    expect(window.location.search).toBe('?vocaloid_banks=Hatsune%20Miku');
    await user.click(within(banks).getByRole('checkbox', { name: 'GUMI' }));
    expect(window.location.search).toBe('?vocaloid_banks=Hatsune%20Miku,GUMI');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Sort' }), 'Oldest first');
    expect(window.location.search).toBe('?vocaloid_banks=Hatsune%20Miku,GUMI&sort=release_date');
    expect(window.history.length).toBe(lengthBefore + 3);
    await waitFor(() =>
      expect(calls.at(-1)?.query).toEqual({
        vocaloid_banks: ['Hatsune Miku', 'GUMI'],
        genres: [],
        languages: [],
        sort: 'release_date',
      }),
    );

    // Back: the URL, the controls and the request all return to the previous choice.
    await act(async () => {
      const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
      window.history.back();
      await popped;
    });
    expect(window.location.search).toBe('?vocaloid_banks=Hatsune%20Miku,GUMI');
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Sort' }).value).toBe('-release_date');
    await waitFor(() => expect(calls.at(-1)?.query.sort).toBe('-release_date'));

    await user.click(within(banks).getByRole('checkbox', { name: 'GUMI' }));
    expect(window.location.search).toBe('?vocaloid_banks=Hatsune%20Miku');
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(window.location.search).toBe('');
    expect(within(banks).getByRole<HTMLInputElement>('checkbox', { name: 'Hatsune Miku' }).checked).toBe(false);
  });

  it('names each option by its value and describes it by its count; long lists are searchable', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 12 }, (_, i) => ({ value: `Bank ${i + 1}`, count: 12 - i }));
    const { releases } = pagedReleases({ '': { releases: [], nextCursor: '' } });
    renderPage(
      fakeApi({
        releases,
        facets: () =>
          Promise.resolve({
            vocaloid_banks: many,
            genres: [],
            languages: [],
            generated_at: '2024-01-01T00:00:00.000Z',
          }),
      }),
    );
    const banks = screen.getByRole('group', { name: 'Voice banks' });
    const first = await within(banks).findByRole('checkbox', { name: 'Bank 1' });
    expect(first.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(first.getAttribute('aria-describedby') ?? '')?.textContent).toBe('12 releases');
    expect(within(banks).getAllByRole('checkbox')).toHaveLength(12);

    await user.type(within(banks).getByRole('searchbox', { name: 'Find a voice bank' }), 'bank 1');
    expect(
      within(banks)
        .getAllByRole('checkbox')
        .map((box) => box.getAttribute('aria-labelledby')),
    ).toHaveLength(4);
    await user.click(within(banks).getByRole('checkbox', { name: 'Bank 11' }));
    expect(window.location.search).toBe('?vocaloid_banks=Bank%2011');
    // Short lists need no search box.
    expect(within(screen.getByRole('group', { name: 'Genres' })).queryByRole('searchbox')).toBeNull();
  });
});

describe('the list', () => {
  it('appends pages with Load more, keeping the cards already shown, until the last page', async () => {
    const user = userEvent.setup();
    const { releases, calls } = pagedReleases({
      '': { releases: [release(1), release(2)], nextCursor: 'c1' },
      c1: { releases: [release(3), release(4)], nextCursor: 'c2' },
      c2: { releases: [release(5)], nextCursor: '' },
    });
    renderPage(fakeApi({ releases }), '/?genres=rock');
    await screen.findByRole('article', { name: 'Song 1' });
    const firstCard = screen.getByRole('article', { name: 'Song 1' });
    expect(screen.getByRole('status').textContent).toBe('2 releases shown, more available.');

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('article', { name: 'Song 4' });
    expect(articleTitles()).toEqual(['Song 1', 'Song 2', 'Song 3', 'Song 4']);
    // The same element, not a re-rendered copy: what was shown stays put.
    expect(screen.getByRole('article', { name: 'Song 1' })).toBe(firstCard);
    // The focus moves to the first new card, so keyboard users read on from there.
    expect(document.activeElement).toBe(screen.getByRole('article', { name: 'Song 3' }));

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('article', { name: 'Song 5' });
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(screen.getByRole('status').textContent).toBe('5 releases shown.');
    expect(calls.map((call) => call.cursor)).toEqual([undefined, 'c1', 'c2']);
    expect(calls.every((call) => call.query.genres[0] === 'rock')).toBe(true);
  });

  it("shows each release's title as its heading, with artist, date, type, voices, genres, languages and links", async () => {
    const { releases } = pagedReleases({
      '': {
        releases: [
          release(1, {
            title: 'Melt',
            artist: 'ryo',
            release_date: '2007-12-07',
            release_type: 'album',
            vocaloid_banks: ['Hatsune Miku'],
            genres: ['electropop', 'rock'],
            languages: ['ja'],
            cover_url: 'https://covers.example.com/melt.jpg',
            links: [
              { site: 'youtube', url: 'https://www.youtube.com/watch?v=x' },
              { site: 'evil', url: 'javascript:alert(1)' },
            ],
          }),
        ],
        nextCursor: '',
      },
    });
    renderPage(fakeApi({ releases }));
    const card = await screen.findByRole('article', { name: 'Melt' });
    expect(within(card).getByRole('heading').textContent).toBe('Melt');
    expect(card.textContent).toContain('ryo');
    expect(within(card).getByText(/2007/).getAttribute('datetime')).toBe('2007-12-07');
    expect(card.textContent).toContain('Album');
    expect(card.textContent).toContain('Hatsune Miku');
    expect(card.textContent).toContain('electropop, rock');
    expect(card.textContent).toContain('Japanese');
    // The title leads to the release's own page; of the catalogue's links, only web ones are shown.
    expect(
      within(card)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/releases/rel_test1', 'https://www.youtube.com/watch?v=x']);
    const cover = card.querySelector('img');
    expect(cover?.getAttribute('width')).toBe('96');
    expect(cover?.getAttribute('height')).toBe('96');
  });

  it("shows the problem's detail and retries", async () => {
    const user = userEvent.setup();
    const problem = {
      type: 'http://localhost/problems/invalid-request',
      title: 'Invalid request',
      status: 400,
      detail: 'languages: "xx-!!" is not a BCP 47 language tag.',
    };
    const releases = vi
      .fn<Api['releases']>()
      .mockRejectedValueOnce(new BadRequestError(400, problem, new Headers()))
      .mockResolvedValueOnce({ releases: [release(1)], nextCursor: '' });
    renderPage(fakeApi({ releases }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(problem.detail);
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('article', { name: 'Song 1' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says when nothing matches and offers to clear the filters', async () => {
    const { releases } = pagedReleases({ '': { releases: [], nextCursor: '' } });
    renderPage(fakeApi({ releases }), '/?genres=nothing');
    expect(await screen.findByText('No releases match these filters.')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Clear filters' }).length).toBeGreaterThan(0);
  });

  it('announces loading while the first page is on its way', async () => {
    let answer: (page: ReleasePageResult) => void = () => undefined;
    const releases = () => new Promise<ReleasePageResult>((resolve) => (answer = resolve));
    renderPage(fakeApi({ releases }));
    expect(screen.getByRole('status').textContent).toBe('Loading releases…');
    expect(screen.getByRole('region', { name: 'Results' }).getAttribute('aria-busy')).toBe('true');
    act(() => answer({ releases: [release(1)], nextCursor: '' }));
    expect(await screen.findByText('1 release shown.')).toBeTruthy();
  });
});
