import json

from django.core.management.base import BaseCommand

from annotation.agreement import LEVELS
from annotation.agreement.selectors import agreement_report
from annotation.models import DIMENSIONS


class Command(BaseCommand):
    help = "Krippendorff's alpha per dimension at ordinal (primary), interval and nominal levels."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="print the full report as JSON")
        parser.add_argument("--bootstrap", type=int, default=0, help="bootstrap resamples for 95%% intervals")

    def handle(self, *args, **opts):
        report = agreement_report(bootstrap=opts["bootstrap"], with_trend=opts["json"])
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=1, ensure_ascii=False))
            return
        self.stdout.write(f"{report['n_units']} posts, {report['n_raters']} annotators")
        self.stdout.write(f"{'dimension':<12}" + "".join(f"{lvl:>10}" for lvl in LEVELS))
        for dim in DIMENSIONS:
            entry = report["dimensions"][dim]
            cells = []
            for lvl in LEVELS:
                value = entry["alpha"][lvl]
                cells.append(f"{value:>10.3f}" if value is not None else f"{'n/a':>10}")
            self.stdout.write(f"{dim:<12}" + "".join(cells))
            if "interval" in entry and entry["interval"]["ordinal"]:
                lo, hi = entry["interval"]["ordinal"]
                self.stdout.write(f"{'':<12}ordinal 95% interval [{lo:.3f}, {hi:.3f}]")
