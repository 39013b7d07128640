/**
 * zod/mini schemas report "Invalid input" for every issue until a locale is configured; classic zod
 * loads the English one itself. A module importing this one gets the same messages from zod/mini
 * (e.g. "Too big: expected array to have <=50 items"), so a refused event still says what is wrong.
 * The locale is a few KB; zod's configuration is global, so this is a side effect on purpose.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());
