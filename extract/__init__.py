"""paper-claims: grounded quantitative claims from research-paper abstracts.

Data flows one way: sources -> documents -> mentions -> model labels -> grounded claims
-> table -> exports / report / evaluation.
"""

from paper_claims.api import aextract_claims, extract_claims, extract_quantities, iter_quantities
from paper_claims.errors import ClaimsError
from paper_claims.extractor import Extractor
from paper_claims.settings import Settings
from paper_claims.outputs.table import ClaimTable

__all__ = ["ClaimTable", "ClaimsError", "Extractor", "Settings", "aextract_claims", "extract_claims", "extract_quantities", "iter_quantities"]
