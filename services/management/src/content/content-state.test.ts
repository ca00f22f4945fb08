import { contentState } from './content-state';

describe('contentState', () => {
  const campaign = { start_date: '2024-03-01', end_date: '2024-03-31' };

  test.each([
    ['2024-02-29', 'inactive'],
    ['2024-03-01', 'active'],
    ['2024-03-15', 'active'],
    ['2024-03-31', 'active'],
    ['2024-04-01', 'inactive'],
  ])('when today is %s, then the state is %s', (today, state) => {
    expect(contentState(campaign, today)).toBe(state);
  });

  test('when the campaign lasts one day, then only that day is active', () => {
    const oneDay = { start_date: '2024-03-05', end_date: '2024-03-05' };
    expect(contentState(oneDay, '2024-03-05')).toBe('active');
    expect(contentState(oneDay, '2024-03-06')).toBe('inactive');
  });
});
