import { BadRequestError } from '@releases/client';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { catalogueFacets, facetsByQuery, fakeApi, release } from '../../test/fake-api.js';
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
    expect(calls[0]?.query).toEqual({
      vocaloid_banks: [],
      genres: ['rock'],
      languages: ['ja'],
      q: '',
      sort: 'release_date',
    });
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
        q: '',
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
            total: 78,
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

  it('says when nothing matches and offers to clear the filters and the search', async () => {
    const user = userEvent.setup();
    const { releases } = pagedReleases({ '': { releases: [], nextCursor: '' } });
    const { facets } = facetsByQuery({ '': {}, '?q=zzz&genres=nothing': { total: 0 } });
    renderPage(fakeApi({ releases, facets }), '/?q=zzz&genres=nothing');
    expect(await screen.findByText('No releases match')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Clear filters' }).length).toBeGreaterThan(0);
    await user.click(screen.getByRole('button', { name: 'Clear search' }));
    expect(window.location.search).toBe('?genres=nothing');
    expect(screen.getByRole<HTMLInputElement>('searchbox', { name: 'Search' }).value).toBe('');
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

/** Lets the page's pause after typing or ticking (300 ms) pass, and a little more. */
const afterThePause = () => act(() => new Promise((resolve) => setTimeout(resolve, 450)));

const searchBox = () => screen.getByRole<HTMLInputElement>('searchbox', { name: 'Search' });
const countText = () => document.querySelector('.results-count')?.textContent;

describe('searching', () => {
  it('updates the address as one types, asks once after a pause, and Back returns to before the search', async () => {
    const user = userEvent.setup();
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    const { facets, calls: facetCalls } = facetsByQuery({ '': {}, '?q=melt': { total: 3 } });
    renderPage(fakeApi({ releases, facets }));
    await screen.findByRole('article', { name: 'Song 1' });
    const lengthBefore = window.history.length;

    await user.type(searchBox(), 'melt');
    // The address follows every letter, as one history entry.
    expect(window.location.search).toBe('?q=melt');
    expect(window.history.length).toBe(lengthBefore + 1);
    await afterThePause();
    await waitFor(() => expect(countText()).toBe('3 releases'));
    // Four letters, one request for the list and one for the counts.
    expect(calls.map((call) => call.query.q)).toEqual(['', 'melt']);
    expect(calls[1]?.query.sort).toBe('relevance');
    expect(facetCalls).toEqual(['', '?q=melt']);

    await act(async () => {
      const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
      window.history.back();
      await popped;
    });
    expect(window.location.search).toBe('');
    expect(searchBox().value).toBe('');
    await waitFor(() => expect(countText()).toBe('59 releases'));
  });

  it('keeps what is typed as typed (a space before the next word), the address trimmed', async () => {
    const user = userEvent.setup();
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    const { facets } = facetsByQuery({ '': {}, '?q=world': {}, '?q=world%20is': {} });
    renderPage(fakeApi({ releases, facets }));
    await screen.findByRole('article', { name: 'Song 1' });
    await user.type(searchBox(), 'world ');
    expect(searchBox().value).toBe('world ');
    expect(window.location.search).toBe('?q=world');
    await user.type(searchBox(), 'is');
    expect(window.location.search).toBe('?q=world%20is');
    await afterThePause();
    await waitFor(() => expect(calls.at(-1)?.query.q).toBe('world is'));
    expect(calls).toHaveLength(2);
  });

  it('reads the search from the address it was opened with, and shares it: filters, search and order together', async () => {
    const user = userEvent.setup();
    const { releases, calls } = pagedReleases({ '': { releases: [release(1, { title: 'Melt' })], nextCursor: '' } });
    const { facets } = facetsByQuery({ '': {}, '?q=melt&genres=rock': { total: 1 } });
    renderPage(fakeApi({ releases, facets }), '/?q=melt&genres=rock');
    await screen.findByRole('article', { name: 'Melt' });
    expect(searchBox().value).toBe('melt');
    expect(calls[0]?.query).toMatchObject({ q: 'melt', genres: ['rock'], sort: 'relevance' });
    await waitFor(() => expect(countText()).toBe('1 release'));

    // With a search, relevance is offered (and chosen); another order goes into the address.
    const sort = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Sort' });
    expect(
      within(sort)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Newest first', 'Oldest first', 'Relevance']);
    expect(sort.value).toBe('relevance');
    await user.selectOptions(sort, 'Oldest first');
    expect(window.location.search).toBe('?q=melt&genres=rock&sort=release_date');
    await user.selectOptions(sort, 'Relevance');
    expect(window.location.search).toBe('?q=melt&genres=rock');

    // Clearing the search falls back to newest first, and relevance is no longer offered.
    await user.clear(searchBox());
    expect(window.location.search).toBe('?genres=rock');
    expect(sort.value).toBe('-release_date');
    expect(within(sort).queryByRole('option', { name: 'Relevance' })).toBeNull();
    await afterThePause();
    expect(calls.at(-1)?.query).toMatchObject({ q: '', sort: '-release_date' });
  });

  it('drops a search from a hand-edited address that the API would refuse, saying so', async () => {
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    const { facets } = facetsByQuery({ '': {}, '?genres=rock': {} });
    renderPage(fakeApi({ releases, facets }), `/?q=${'x'.repeat(101)}&genres=rock`);
    const notice = await screen.findByRole('alert');
    expect(notice.textContent).toContain('(Search) must be at most 100 characters');
    // The notice quotes the start of it, not all of it.
    expect(notice.textContent).toContain(`“${'x'.repeat(40)}…”`);
    await waitFor(() => expect(window.location.search).toBe('?genres=rock'));
    await screen.findByRole('article', { name: 'Song 1' });
    expect(calls.every((call) => call.query.q === '')).toBe(true);
    expect(searchBox().value).toBe('');
  });

  it('says why a search cannot be sent, and keeps the last one that could', async () => {
    const user = userEvent.setup();
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    const { facets } = facetsByQuery({ '': {}, '?q=a%20b%20c%20d%20e%20f%20g%20h': {} });
    renderPage(fakeApi({ releases, facets }));
    await screen.findByRole('article', { name: 'Song 1' });
    await user.type(searchBox(), 'a b c d e f g h i');
    expect(window.location.search).toBe('?q=a%20b%20c%20d%20e%20f%20g%20h');
    expect(searchBox().getAttribute('aria-invalid')).toBe('true');
    const note = document.getElementById(searchBox().getAttribute('aria-describedby') ?? '');
    expect(note?.textContent).toBe('Search must hold at most 8 terms (words separated by spaces).');
    await afterThePause();
    expect(calls.map((call) => call.query.q)).toEqual(['', 'a b c d e f g h']);
  });
});

describe('the number of matches and the counts in context', () => {
  it('says how many releases match, from the facets for the same filters and search', async () => {
    const user = userEvent.setup();
    const { releases } = pagedReleases({ '': { releases: [release(1)], nextCursor: 'more' } });
    const { facets, calls } = facetsByQuery({
      '': { total: 1234 },
      '?genres=rock': { total: 1 },
      '?genres=rock,electropop': { total: 0 },
    });
    renderPage(fakeApi({ releases, facets }));
    await waitFor(() => expect(countText()).toBe('1,234 releases'));
    const live = document.querySelector('.results-count');
    expect(live?.getAttribute('aria-live')).toBe('polite');

    const genres = screen.getByRole('group', { name: 'Genres' });
    await user.click(within(genres).getByRole('checkbox', { name: 'rock' }));
    await afterThePause();
    await waitFor(() => expect(countText()).toBe('1 release'));
    await user.click(within(genres).getByRole('checkbox', { name: 'electropop' }));
    await afterThePause();
    await waitFor(() => expect(countText()).toBe('No releases match'));
    // The same element throughout: a live region that is replaced is not announced.
    expect(document.querySelector('.results-count')).toBe(live);
    expect(calls).toEqual(['', '?genres=rock', '?genres=rock,electropop']);
  });

  it("counts each value over the search and the other filters, keeping the catalogue's values at 0", async () => {
    const user = userEvent.setup();
    const { releases } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    const { facets } = facetsByQuery({
      '': {},
      '?q=melt&vocaloid_banks=GUMI': {
        total: 4,
        vocaloid_banks: [
          { value: 'Hatsune Miku', count: 6 },
          { value: 'GUMI', count: 4 },
        ],
        genres: [{ value: 'electropop', count: 3 }],
        languages: [{ value: 'ja', count: 4 }],
      },
    });
    renderPage(fakeApi({ releases, facets }), '/?q=melt&vocaloid_banks=GUMI');
    await waitFor(() => expect(countText()).toBe('4 releases'));
    const countOf = (group: string, name: string) => {
      const box = within(screen.getByRole('group', { name: group })).getByRole('checkbox', { name });
      return document.getElementById(box.getAttribute('aria-describedby') ?? '')?.textContent;
    };
    await waitFor(() => expect(countOf('Voice banks', 'Hatsune Miku')).toBe('6 releases'));
    expect(countOf('Voice banks', 'GUMI')).toBe('4 releases');
    // Absent from the query's answer, still offered (in the catalogue's order), at 0.
    expect(countOf('Voice banks', 'Kagamine Rin')).toBe('0 releases');
    expect(countOf('Genres', 'rock')).toBe('0 releases');
    expect(countOf('Genres', 'electropop')).toBe('3 releases');
    const banks = within(screen.getByRole('group', { name: 'Voice banks' })).getAllByRole('checkbox');
    const names = banks.map((box) => document.getElementById(box.getAttribute('aria-labelledby') ?? '')?.textContent);
    expect(names).toEqual(catalogueFacets.vocaloid_banks.map(({ value }) => value));
    // A value at 0 can still be chosen (values within one filter are OR-ed).
    await user.click(within(screen.getByRole('group', { name: 'Genres' })).getByRole('checkbox', { name: 'rock' }));
    expect(window.location.search).toBe('?q=melt&vocaloid_banks=GUMI&genres=rock');
  });

  it('ticking many boxes in a row asks once for the list and once for the counts', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 14 }, (_, i) => ({ value: `genre${i + 1}`, count: 20 - i }));
    const all = many.map(({ value }) => value);
    const { releases, calls } = pagedReleases({ '': { releases: [release(1)], nextCursor: '' } });
    const { facets, calls: facetCalls } = facetsByQuery({
      '': { genres: many },
      [`?genres=${all.join(',')}`]: { genres: many, total: 20 },
    });
    renderPage(fakeApi({ releases, facets }));
    await screen.findByRole('article', { name: 'Song 1' });
    const genres = screen.getByRole('group', { name: 'Genres' });
    for (const value of all) await user.click(within(genres).getByRole('checkbox', { name: value }));
    expect(new URLSearchParams(window.location.search).get('genres')).toBe(all.join(','));
    await afterThePause();
    await waitFor(() => expect(countText()).toBe('20 releases'));
    expect(calls).toHaveLength(2);
    expect(calls[1]?.query.genres).toEqual(all);
    expect(facetCalls).toEqual(['', `?genres=${all.join(',')}`]);
  });
});
