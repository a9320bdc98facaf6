import { useState } from 'preact/hooks';
import type { PrinterProfile } from '../shared/printer-profiles.ts';
import { languageWords } from '../shared/profile-fit.ts';
import {
  presetOf,
  profileLanguages,
  profilePresets,
  profileRollWidths,
  profileSheetSizes,
} from '../shared/profile-presets.ts';

const none = 'none';
const detail = 'detail';

/**
 * A route's printer profile: none (print what is sent), one of the presets by name ("80 mm
 * receipt, ESC/POS"), or in detail (language, width, dpi, cut). `idBase` keeps the labels'
 * ids apart when several routes are edited at once.
 */
export function ProfilePicker(props: {
  idBase: string;
  profile: PrinterProfile | undefined;
  onChange: (profile: PrinterProfile | undefined) => void;
}) {
  const { idBase, profile, onChange } = props;
  const [mode, setMode] = useState(() => (profile ? (presetOf(profile) ?? detail) : none));
  const choose = (value: string) => {
    setMode(value);
    if (value === none) onChange(undefined);
    else if (value === detail) onChange(profile ?? { language: 'escpos', width_mm: 80 });
    else onChange(profilePresets.find((preset) => preset.label === value)?.profile);
  };
  const patch = (change: Partial<PrinterProfile>) => {
    const next = { ...(profile ?? { language: 'escpos' }), ...change } as Record<string, unknown>;
    for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
    onChange(next as PrinterProfile);
  };
  const width = profile?.width_mm;
  return (
    <div class="profile-picker">
      <label for={`${idBase}-profile`}>Printer profile</label>
      <select
        id={`${idBase}-profile`}
        value={mode}
        onChange={(event) => choose(event.currentTarget.value)}
      >
        <option value={none}>None: print what is sent</option>
        {profilePresets.map((preset) => (
          <option key={preset.label} value={preset.label}>
            {preset.label}
          </option>
        ))}
        <option value={detail}>In detail…</option>
      </select>
      {mode === detail && profile && (
        <div class="profile-detail">
          <label for={`${idBase}-language`}>Language</label>
          <select
            id={`${idBase}-language`}
            value={profile.language}
            onChange={(event) =>
              patch({ language: event.currentTarget.value as PrinterProfile['language'] })
            }
          >
            {profileLanguages.map((language) => (
              <option key={language} value={language}>
                {languageWords[language]}
              </option>
            ))}
          </select>
          <label for={`${idBase}-width`}>Paper</label>
          <select
            id={`${idBase}-width`}
            value={width === undefined ? '' : String(width)}
            onChange={(event) => {
              const value = event.currentTarget.value;
              patch({
                width_mm:
                  value === '' ? undefined : /^\d+$/.test(value) ? Number(value) : (value as 'a4'),
              });
            }}
          >
            <option value="">Not set</option>
            {profileRollWidths.map((mm) => (
              <option key={mm} value={String(mm)}>
                {mm} mm roll
              </option>
            ))}
            <option value="102">102 mm (4 in) label</option>
            {profileSheetSizes.map((size) => (
              <option key={size} value={size}>
                {size.toUpperCase()} sheet
              </option>
            ))}
          </select>
          <label for={`${idBase}-dpi`}>Resolution</label>
          <select
            id={`${idBase}-dpi`}
            value={profile.dpi ? String(profile.dpi) : ''}
            onChange={(event) => {
              const value = event.currentTarget.value;
              patch({ dpi: value === '' ? undefined : (Number(value) as 203 | 300) });
            }}
          >
            <option value="">Not set</option>
            <option value="203">203 dpi</option>
            <option value="300">300 dpi</option>
          </select>
          <label class="check">
            <input
              type="checkbox"
              checked={profile.cut === true}
              onChange={(event) => patch({ cut: event.currentTarget.checked || undefined })}
            />{' '}
            Cut the paper after each job
          </label>
        </div>
      )}
    </div>
  );
}
