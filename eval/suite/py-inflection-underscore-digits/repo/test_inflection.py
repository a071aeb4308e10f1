# -*- coding: utf-8 -*-
# The package's own tests (test_inflection.py of the 0.5.1 sdist), run with unittest.
import unittest

import inflection

SINGULAR_TO_PLURAL = (
    ("search", "searches"),
    ("switch", "switches"),
    ("fix", "fixes"),
    ("box", "boxes"),
    ("process", "processes"),
    ("address", "addresses"),
    ("case", "cases"),
    ("stack", "stacks"),
    ("wish", "wishes"),
    ("fish", "fish"),
    ("jeans", "jeans"),
    ("funky jeans", "funky jeans"),

    ("category", "categories"),
    ("query", "queries"),
    ("ability", "abilities"),
    ("agency", "agencies"),
    ("movie", "movies"),

    ("archive", "archives"),

    ("index", "indices"),

    ("wife", "wives"),
    ("safe", "saves"),
    ("half", "halves"),

    ("move", "moves"),

    ("salesperson", "salespeople"),
    ("person", "people"),

    ("spokesman", "spokesmen"),
    ("man", "men"),
    ("woman", "women"),

    ("basis", "bases"),
    ("diagnosis", "diagnoses"),
    ("diagnosis_a", "diagnosis_as"),

    ("datum", "data"),
    ("medium", "media"),
    ("stadium", "stadia"),
    ("analysis", "analyses"),

    ("node_child", "node_children"),
    ("child", "children"),

    ("experience", "experiences"),
    ("day", "days"),

    ("comment", "comments"),
    ("foobar", "foobars"),
    ("newsletter", "newsletters"),

    ("old_news", "old_news"),
    ("news", "news"),

    ("series", "series"),
    ("species", "species"),

    ("quiz", "quizzes"),

    ("perspective", "perspectives"),

    ("ox", "oxen"),
    ("passerby", "passersby"),
    ("photo", "photos"),
    ("buffalo", "buffaloes"),
    ("tomato", "tomatoes"),
    ("potato", "potatoes"),
    ("dwarf", "dwarves"),
    ("elf", "elves"),
    ("information", "information"),
    ("equipment", "equipment"),
    ("bus", "buses"),
    ("status", "statuses"),
    ("status_code", "status_codes"),
    ("mouse", "mice"),

    ("louse", "lice"),
    ("house", "houses"),
    ("octopus", "octopi"),
    ("virus", "viri"),
    ("alias", "aliases"),
    ("portfolio", "portfolios"),

    ("vertex", "vertices"),
    ("matrix", "matrices"),
    ("matrix_fu", "matrix_fus"),

    ("axis", "axes"),
    ("testis", "testes"),
    ("crisis", "crises"),

    ("rice", "rice"),
    ("shoe", "shoes"),

    ("horse", "horses"),
    ("prize", "prizes"),
    ("edge", "edges"),

    ("cow", "kine"),
    ("database", "databases"),
    ("human", "humans")
)

CAMEL_TO_UNDERSCORE = (
    ("Product",               "product"),
    ("SpecialGuest",          "special_guest"),
    ("ApplicationController", "application_controller"),
    ("Area51Controller",      "area51_controller"),
)

CAMEL_TO_UNDERSCORE_WITHOUT_REVERSE = (
    ("HTMLTidy",              "html_tidy"),
    ("HTMLTidyGenerator",     "html_tidy_generator"),
    ("FreeBSD",               "free_bsd"),
    ("HTML",                  "html"),
)

STRING_TO_PARAMETERIZED = (
    (u"Donald E. Knuth", "donald-e-knuth"),
    (
        u"Random text with *(bad)* characters",
        "random-text-with-bad-characters"
    ),
    (u"Allow_Under_Scores", "allow_under_scores"),
    (u"Trailing bad characters!@#", "trailing-bad-characters"),
    (u"!@#Leading bad characters", "leading-bad-characters"),
    (u"Squeeze   separators", "squeeze-separators"),
    (u"Test with + sign", "test-with-sign"),
    (u"Test with malformed utf8 \251", "test-with-malformed-utf8"),
)

STRING_TO_PARAMETERIZE_WITH_NO_SEPARATOR = (
    (u"Donald E. Knuth", "donaldeknuth"),
    (u"With-some-dashes", "with-some-dashes"),
    (u"Random text with *(bad)* characters", "randomtextwithbadcharacters"),
    (u"Trailing bad characters!@#", "trailingbadcharacters"),
    (u"!@#Leading bad characters", "leadingbadcharacters"),
    (u"Squeeze   separators", "squeezeseparators"),
    (u"Test with + sign", "testwithsign"),
    (u"Test with malformed utf8 \251", "testwithmalformedutf8"),
)

STRING_TO_PARAMETERIZE_WITH_UNDERSCORE = (
    (u"Donald E. Knuth", "donald_e_knuth"),
    (
        u"Random text with *(bad)* characters",
        "random_text_with_bad_characters"
    ),
    (u"With-some-dashes", "with-some-dashes"),
    (u"Retain_underscore", "retain_underscore"),
    (u"Trailing bad characters!@#", "trailing_bad_characters"),
    (u"!@#Leading bad characters", "leading_bad_characters"),
    (u"Squeeze   separators", "squeeze_separators"),
    (u"Test with + sign", "test_with_sign"),
    (u"Test with malformed utf8 \251", "test_with_malformed_utf8"),
)

STRING_TO_PARAMETERIZED_AND_NORMALIZED = (
    (u"Malmö", "malmo"),
    (u"Garçons", "garcons"),
    (u"Ops\331", "opsu"),
    (u"Ærøskøbing", "rskbing"),
    (u"Aßlar", "alar"),
    (u"Japanese: 日本語", "japanese"),
)

UNDERSCORE_TO_HUMAN = (
    ("employee_salary",       "Employee salary"),
    ("employee_id",           "Employee"),
    ("underground",           "Underground"),
)

MIXTURE_TO_TITLEIZED = (
    ('active_record',         'Active Record'),
    ('ActiveRecord',          'Active Record'),
    ('action web service',    'Action Web Service'),
    ('Action Web Service',    'Action Web Service'),
    ('Action web service',    'Action Web Service'),
    ('actionwebservice',      'Actionwebservice'),
    ('Actionwebservice',      'Actionwebservice'),
    ("david's code",          "David's Code"),
    ("David's code",          "David's Code"),
    ("david's Code",          "David's Code"),
    ("ana índia",             "Ana Índia"),
    ("Ana Índia",             "Ana Índia"),
)


ORDINAL_NUMBERS = (
    ("-1", "-1st"),
    ("-2", "-2nd"),
    ("-3", "-3rd"),
    ("-4", "-4th"),
    ("-5", "-5th"),
    ("-6", "-6th"),
    ("-7", "-7th"),
    ("-8", "-8th"),
    ("-9", "-9th"),
    ("-10", "-10th"),
    ("-11", "-11th"),
    ("-12", "-12th"),
    ("-13", "-13th"),
    ("-14", "-14th"),
    ("-20", "-20th"),
    ("-21", "-21st"),
    ("-22", "-22nd"),
    ("-23", "-23rd"),
    ("-24", "-24th"),
    ("-100", "-100th"),
    ("-101", "-101st"),
    ("-102", "-102nd"),
    ("-103", "-103rd"),
    ("-104", "-104th"),
    ("-110", "-110th"),
    ("-111", "-111th"),
    ("-112", "-112th"),
    ("-113", "-113th"),
    ("-1000", "-1000th"),
    ("-1001", "-1001st"),
    ("0", "0th"),
    ("1", "1st"),
    ("2", "2nd"),
    ("3", "3rd"),
    ("4", "4th"),
    ("5", "5th"),
    ("6", "6th"),
    ("7", "7th"),
    ("8", "8th"),
    ("9", "9th"),
    ("10", "10th"),
    ("11", "11th"),
    ("12", "12th"),
    ("13", "13th"),
    ("14", "14th"),
    ("20", "20th"),
    ("21", "21st"),
    ("22", "22nd"),
    ("23", "23rd"),
    ("24", "24th"),
    ("100", "100th"),
    ("101", "101st"),
    ("102", "102nd"),
    ("103", "103rd"),
    ("104", "104th"),
    ("110", "110th"),
    ("111", "111th"),
    ("112", "112th"),
    ("113", "113th"),
    ("1000", "1000th"),
    ("1001", "1001st"),
)

UNDERSCORES_TO_DASHES = (
    ("street",                "street"),
    ("street_address",        "street-address"),
    ("person_street_address", "person-street-address"),
)

STRING_TO_TABLEIZE = (
    ("person", "people"),
    ("Country", "countries"),
    ("ChildToy", "child_toys"),
    ("_RecipeIngredient", "_recipe_ingredients"),
)


class PluralizeTests(unittest.TestCase):
    def test_pluralize_plurals(self):
        self.assertEqual("plurals", inflection.pluralize("plurals"))
        self.assertEqual("Plurals", inflection.pluralize("Plurals"))

    def test_pluralize_empty_string(self):
        self.assertEqual("", inflection.pluralize(""))

    def test_uncountability(self):
        for word in inflection.UNCOUNTABLES:
            with self.subTest(word=word):
                self.assertEqual(word, inflection.singularize(word))
                self.assertEqual(word, inflection.pluralize(word))
                self.assertEqual(inflection.pluralize(word), inflection.singularize(word))

    def test_uncountable_word_is_not_greedy(self):
        uncountable_word = "ors"
        countable_word = "sponsor"

        inflection.UNCOUNTABLES.add(uncountable_word)
        try:
            self.assertEqual(uncountable_word, inflection.singularize(uncountable_word))
            self.assertEqual(uncountable_word, inflection.pluralize(uncountable_word))
            self.assertEqual(
                inflection.pluralize(uncountable_word),
                inflection.singularize(uncountable_word),
            )
            self.assertEqual("sponsor", inflection.singularize(countable_word))
            self.assertEqual("sponsors", inflection.pluralize(countable_word))
            self.assertEqual(
                "sponsor", inflection.singularize(inflection.pluralize(countable_word))
            )
        finally:
            inflection.UNCOUNTABLES.remove(uncountable_word)

    def test_pluralize_singular(self):
        for singular, plural in SINGULAR_TO_PLURAL:
            with self.subTest(singular=singular):
                self.assertEqual(plural, inflection.pluralize(singular))
                self.assertEqual(
                    plural.capitalize(), inflection.pluralize(singular.capitalize())
                )

    def test_singularize_plural(self):
        for singular, plural in SINGULAR_TO_PLURAL:
            with self.subTest(plural=plural):
                self.assertEqual(singular, inflection.singularize(plural))
                self.assertEqual(
                    singular.capitalize(), inflection.singularize(plural.capitalize())
                )

    def test_pluralize_plural(self):
        for singular, plural in SINGULAR_TO_PLURAL:
            with self.subTest(plural=plural):
                self.assertEqual(plural, inflection.pluralize(plural))
                self.assertEqual(
                    plural.capitalize(), inflection.pluralize(plural.capitalize())
                )


class CaseTests(unittest.TestCase):
    def test_titleize(self):
        for before, titleized in MIXTURE_TO_TITLEIZED:
            with self.subTest(before=before):
                self.assertEqual(titleized, inflection.titleize(before))

    def test_camelize(self):
        for camel, underscore in CAMEL_TO_UNDERSCORE:
            with self.subTest(underscore=underscore):
                self.assertEqual(camel, inflection.camelize(underscore))

    def test_camelize_with_lower_downcases_the_first_letter(self):
        self.assertEqual('capital', inflection.camelize('Capital', False))

    def test_camelize_with_underscores(self):
        self.assertEqual("CamelCase", inflection.camelize('Camel_Case'))

    def test_underscore(self):
        for camel, underscore in CAMEL_TO_UNDERSCORE + CAMEL_TO_UNDERSCORE_WITHOUT_REVERSE:
            with self.subTest(camel=camel):
                self.assertEqual(underscore, inflection.underscore(camel))

    def test_humanize(self):
        for underscore, human in UNDERSCORE_TO_HUMAN:
            with self.subTest(underscore=underscore):
                self.assertEqual(human, inflection.humanize(underscore))

    def test_dasherize(self):
        for input, expected in UNDERSCORES_TO_DASHES:
            with self.subTest(input=input):
                self.assertEqual(inflection.dasherize(input), expected)

    def test_tableize(self):
        for string, tableized in STRING_TO_TABLEIZE:
            with self.subTest(string=string):
                self.assertEqual(inflection.tableize(string), tableized)


class ParameterizeTests(unittest.TestCase):
    def test_parameterize(self):
        for some_string, parameterized_string in STRING_TO_PARAMETERIZED:
            with self.subTest(some_string=some_string):
                self.assertEqual(parameterized_string, inflection.parameterize(some_string))

    def test_parameterize_and_normalize(self):
        for some_string, parameterized_string in STRING_TO_PARAMETERIZED_AND_NORMALIZED:
            with self.subTest(some_string=some_string):
                self.assertEqual(parameterized_string, inflection.parameterize(some_string))

    def test_parameterize_with_custom_separator(self):
        for some_string, parameterized_string in STRING_TO_PARAMETERIZE_WITH_UNDERSCORE:
            with self.subTest(some_string=some_string):
                self.assertEqual(
                    parameterized_string, inflection.parameterize(some_string, '_')
                )

    def test_parameterize_with_multi_character_separator(self):
        for some_string, parameterized_string in STRING_TO_PARAMETERIZED:
            with self.subTest(some_string=some_string):
                self.assertEqual(
                    parameterized_string.replace('-', '__sep__'),
                    inflection.parameterize(some_string, '__sep__'),
                )

    def test_parameterize_with_no_separator(self):
        for some_string, parameterized_string in STRING_TO_PARAMETERIZE_WITH_NO_SEPARATOR:
            with self.subTest(some_string=some_string):
                self.assertEqual(parameterized_string, inflection.parameterize(some_string, ''))


class OrdinalTests(unittest.TestCase):
    def test_ordinal(self):
        for number, ordinalized in ORDINAL_NUMBERS:
            with self.subTest(number=number):
                self.assertEqual(ordinalized, number + inflection.ordinal(number))

    def test_ordinalize(self):
        for number, ordinalized in ORDINAL_NUMBERS:
            with self.subTest(number=number):
                self.assertEqual(ordinalized, inflection.ordinalize(number))


if __name__ == "__main__":
    unittest.main()
