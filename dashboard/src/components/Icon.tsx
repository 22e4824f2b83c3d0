import type { JSX } from 'preact';

/**
 * Line icons drawn inline (no icon font, no file to fetch: the CSP stays as it is), 24×24,
 * stroked in the text's colour and sized to it. Always decorative (`aria-hidden`): the words
 * beside them, or the button's `aria-label`, carry the meaning.
 */
const PATHS = {
  overview: ['M3 11l9-8 9 8', 'M5 9.5V20h5v-6h4v6h5V9.5'],
  agents: ['M12 3v4', 'M5 7h14a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V9a2 2 0 0 1 2-2z', 'M9 12.5v1', 'M15 12.5v1', 'M9.5 17h5'],
  chats: ['M4 5h16a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H9l-5 4V6a1 1 0 0 1 1-1z'],
  webhooks: ['M12 8.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M6 20.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M18 20.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M10.8 8.2L7.2 15.8', 'M13.2 8.2l3.6 7.6', 'M8.5 18h7'],
  settings: ['M4 6h9', 'M19 6h1', 'M4 12h3', 'M13 12h7', 'M4 18h11', 'M19 18h1', 'M16 8a2 2 0 1 0 0-4 2 2 0 0 0 0 4z', 'M10 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z', 'M17 20a2 2 0 1 0 0-4 2 2 0 0 0 0 4z'],
  profile: ['M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M4 21c0-4 3.6-7 8-7s8 3 8 7'],
  password: ['M6 11h12a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1v-8a1 1 0 0 1 1-1z', 'M8 11V7a4 4 0 0 1 8 0v4'],
  security: ['M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z', 'M9 12l2 2 4-4'],
  sessions: ['M4 4h16a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z', 'M8 20h8', 'M12 16v4'],
  key: ['M8 20a4.5 4.5 0 1 0 0-9 4.5 4.5 0 0 0 0 9z', 'M11.2 12.3L20 3.5', 'M17 6.5l2.5 2.5', 'M14.5 9l2 2'],
  organization: ['M5 21V4a1 1 0 0 1 1-1h12a1 1 0 0 1 1 1v17', 'M3 21h18', 'M9 7h1', 'M14 7h1', 'M9 11h1', 'M14 11h1', 'M10 21v-4h4v4'],
  members: ['M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z', 'M3 20c0-3.3 2.7-6 6-6s6 2.7 6 6', 'M16 4.3a3.5 3.5 0 0 1 0 6.4', 'M18 14.4c1.8.8 3 2.9 3 5.6'],
  log: ['M9 6h11', 'M9 12h11', 'M9 18h11', 'M4.5 6h.01', 'M4.5 12h.01', 'M4.5 18h.01'],
  activity: ['M3 12h4l3-8 4 16 3-8h4'],
  logout: ['M9 4H5a1 1 0 0 0-1 1v14a1 1 0 0 0 1 1h4', 'M16 8l4 4-4 4', 'M20 12H10'],
  plus: ['M12 5v14', 'M5 12h14'],
  edit: ['M4 20h4L19 9l-4-4L4 16z', 'M13.5 6.5l4 4'],
  trash: ['M4 7h16', 'M9 7V4h6v3', 'M6 7l1 13h10l1-13', 'M10 11v5', 'M14 11v5'],
  send: ['M21 3L3 10.5l7 2.5 2.5 7z', 'M10 13l11-10'],
  refresh: ['M20 11a8 8 0 0 0-14.3-4.3L4 8.5', 'M4 4v4.5h4.5', 'M4 13a8 8 0 0 0 14.3 4.3l1.7-1.8', 'M20 20v-4.5h-4.5'],
  copy: ['M10 9h9a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1h-9a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1z', 'M5 15H4.5a.5.5 0 0 1-.5-.5V4.5a.5.5 0 0 1 .5-.5h10a.5.5 0 0 1 .5.5V5'],
  power: ['M12 3v8', 'M6.3 6.8a8 8 0 1 0 11.4 0'],
  back: ['M19 12H5', 'M11 6l-6 6 6 6'],
  chevron: ['M9 6l6 6-6 6'],
  inbox: ['M3 13l3-8h12l3 8v6a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z', 'M3 13h5l1.5 2.5h5L16 13h5'],
  mail: ['M4 5h16a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z', 'M3 7l9 6 9-6'],
  check: ['M5 12.5l4.5 4.5L19 7'],
  warning: ['M12 3.5l9.5 16.5h-19z', 'M12 10v4.5', 'M12 17.3h.01'],
  search: ['M10.5 17a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13z', 'M15.2 15.2L20 20'],
  admin: ['M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z', 'M12 11.5a2 2 0 1 0 0-4 2 2 0 0 0 0 4z', 'M8.5 16c.6-1.7 2-2.5 3.5-2.5s2.9.8 3.5 2.5'],
  download: ['M12 4v11', 'M7 10l5 5 5-5', 'M5 20h14'],
  apps: ['M4 4h6v6H4z', 'M14 4h6v6h-6z', 'M4 14h6v6H4z', 'M14 14h6v6h-6z'],
  connected: ['M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1', 'M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1'],
  account: ['M4 5h16a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z', 'M9 12a2 2 0 1 0 0-4 2 2 0 0 0 0 4z', 'M6 16c.5-1.4 1.6-2.2 3-2.2s2.5.8 3 2.2', 'M15 10h3', 'M15 14h2'],
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, class: className }: { name: IconName; class?: string }): JSX.Element {
  return (
    <svg
      class={className ? `icon ${className}` : 'icon'}
      viewBox="0 0 24 24"
      width="24"
      height="24"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
    >
      {PATHS[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
