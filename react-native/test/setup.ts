// waitFor/findBy give up after 1 s by default: too short for a first render on a busy CI machine,
// where a cold start's first request can take longer. A real failure still fails, just later.
import { configure } from '@testing-library/react-native';

configure({ asyncUtilTimeout: 10_000 });
