import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';

export function NotFoundPage() {
  return (
    <>
      <PageHeading title="Page not found" />
      <p>
        Nothing lives at this address. <Link href="/">Go to the overview</Link>.
      </p>
    </>
  );
}
