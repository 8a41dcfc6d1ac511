package dataset

// Info is where a shipped dataset comes from and what it holds, known
// without loading it.
type Info struct {
	// Name is the dataset's name in bench ("letter").
	Name string
	// Title is the dataset's usual name ("Letter Image Recognition").
	Title string
	// Package is the Debian package the file was converted from, File the
	// file(s) in it.
	Package, File string
	// Source is the original source, with its citation.
	Source string
	// License is the licence the Debian package's copyright file gives
	// for the file, and what is known of the data's own terms.
	License string
	// OpenML is the OpenML data id of the bake-off dataset this one
	// corresponds to, 0 if the bake-off has none; OpenMLNote says how the
	// two match or differ.
	OpenML     int
	OpenMLNote string
	// Rows, Features (after one-hot encoding) and Classes are the counts
	// Load gives.
	Rows, Features, Classes int
}

// Lookup returns the Info of the dataset name, false if none ships.
func Lookup(name string) (Info, bool) {
	for _, in := range infos {
		if in.Name == name {
			return in, true
		}
	}
	return Info{}, false
}

// Infos returns the Info of every shipped dataset, sorted by name.
func Infos() []Info {
	return append([]Info(nil), infos...)
}

// The licences, as /usr/share/doc/PACKAGE/copyright states them.
const (
	sklearnLicense = "BSD-3-Clause (python3-sklearn's copyright file, Files: *); the data is the UCI repository's, which asks that it be cited"
	mlbenchLicense = "GPL-2 (r-cran-mlbench's copyright file, Files: *); the data is the UCI repository's (StatLog's for dna), which asks that it be cited"
	wekaLicense    = "GPL-2 or later (weka's copyright file); the data is the UCI repository's, which asks that it be cited"
	uci            = "UCI Machine Learning Repository (Dua & Graff, University of California, Irvine)"
	mlbenchDir     = "/usr/lib/R/site-library/mlbench/data/"
	sklearnDir     = "/usr/lib/python3/dist-packages/sklearn/datasets/data/"
	wekaDir        = "/usr/share/doc/weka/examples/"
	sameData       = "the same data: rows, features and majority-class share match the bake-off's metadata"
)

// infos is sorted by Name. The counts are checked against the files by
// TestCounts, and against the original sources' own counts there too.
var infos = []Info{
	{
		Name: "breast_cancer", Title: "Breast Cancer Wisconsin (Diagnostic)",
		Package: "python3-sklearn", File: sklearnDir + "breast_cancer.csv",
		Source:  uci + "; W. N. Street, W. H. Wolberg, O. L. Mangasarian, Nuclear feature extraction for breast tumor diagnosis, IS&T/SPIE 1993",
		License: sklearnLicense,
		OpenML:  0, OpenMLNote: "not in the bake-off: its metadata has no dataset of 569 rows",
		Rows: 569, Features: 30, Classes: 2,
	},
	{
		Name: "credit_g", Title: "Statlog German Credit",
		Package: "weka", File: wekaDir + "credit-g.arff",
		Source:  uci + "; H. Hofmann, Statlog (German Credit Data), Universität Hamburg, 1994",
		License: wekaLicense,
		OpenML:  31, OpenMLNote: sameData + " (1,000 rows, 20 features before one-hot encoding, 0.300)",
		Rows: 1000, Features: 59, Classes: 2,
	},
	{
		Name: "digits", Title: "Optical Recognition of Handwritten Digits (test set)",
		Package: "python3-sklearn", File: sklearnDir + "digits.csv.gz",
		Source:  uci + "; E. Alpaydin, C. Kaynak, Cascading classifiers, Kybernetika 34(4), 1998",
		License: sklearnLicense,
		OpenML:  28, OpenMLNote: "the bake-off used all 5,620 rows of optdigits; scikit-learn ships its 1,797-row test set, with the same 64 features",
		Rows: 1797, Features: 64, Classes: 10,
	},
	{
		Name: "dna", Title: "Primate splice-junction gene sequences (StatLog DNA)",
		Package: "r-cran-mlbench", File: mlbenchDir + "DNA.rda",
		Source:  "StatLog (R. King, Strathclyde) from the " + uci + " splice-junction data; G. G. Towell, J. W. Shavlik, M. O. Noordewier, Refinement of approximate domain theories by knowledge-based neural networks, AAAI 1990",
		License: mlbenchLicense,
		OpenML:  46, OpenMLNote: "the bake-off used splice (3,190 rows: the 60 nucleotides as symbols and the instance name); this is StatLog's processing of the same sequences: 4 ambiguous rows dropped, each nucleotide as 3 binary indicators",
		Rows: 3186, Features: 180, Classes: 3,
	},
	{
		Name: "glass", Title: "Glass Identification",
		Package: "r-cran-mlbench", File: mlbenchDir + "Glass.rda",
		Source:  uci + "; B. German, Home Office Forensic Science Service; I. W. Evett, E. J. Spiehler, Rule induction in forensic science, 1987",
		License: mlbenchLicense,
		OpenML:  41, OpenMLNote: sameData + " (214, 9, 0.645)",
		Rows: 214, Features: 9, Classes: 6,
	},
	{
		Name: "ionosphere", Title: "Johns Hopkins University Ionosphere",
		Package: "r-cran-mlbench", File: mlbenchDir + "Ionosphere.rda",
		Source:  uci + "; V. G. Sigillito, S. P. Wing, L. V. Hutton, K. B. Baker, Classification of radar returns from the ionosphere using neural networks, Johns Hopkins APL Technical Digest 10, 1989",
		License: mlbenchLicense,
		OpenML:  59, OpenMLNote: sameData + " (351, 34, 0.359)",
		Rows: 351, Features: 34, Classes: 2,
	},
	{
		Name: "iris", Title: "Iris",
		Package: "python3-sklearn", File: sklearnDir + "iris.csv",
		Source:  uci + "; R. A. Fisher, The use of multiple measurements in taxonomic problems, Annals of Eugenics 7, 1936",
		License: sklearnLicense,
		OpenML:  61, OpenMLNote: sameData + " (150, 4, 0.667); scikit-learn's copy follows Fisher's paper, which UCI's copy differs from in two values",
		Rows: 150, Features: 4, Classes: 3,
	},
	{
		Name: "letter", Title: "Letter Image Recognition",
		Package: "r-cran-mlbench", File: mlbenchDir + "LetterRecognition.rda",
		Source:  uci + "; P. W. Frey, D. J. Slate, Letter recognition using Holland-style adaptive classifiers, Machine Learning 6(2), 1991",
		License: mlbenchLicense,
		OpenML:  6, OpenMLNote: sameData + " (20,000, 16, 0.959)",
		Rows: 20000, Features: 16, Classes: 26,
	},
	{
		Name: "pima", Title: "Pima Indians Diabetes",
		Package: "r-cran-mlbench", File: mlbenchDir + "PimaIndiansDiabetes.rda",
		Source:  uci + "; National Institute of Diabetes and Digestive and Kidney Diseases; J. W. Smith et al., Using the ADAP learning algorithm to forecast the onset of diabetes mellitus, 1988",
		License: mlbenchLicense,
		OpenML:  37, OpenMLNote: sameData + " (768, 8, 0.349); zeros that stand for missing measurements are kept as zeros, as in the original",
		Rows: 768, Features: 8, Classes: 2,
	},
	{
		Name: "satimage", Title: "Statlog Landsat Satellite",
		Package: "r-cran-mlbench", File: mlbenchDir + "Satellite.rda",
		Source:  "StatLog, from the " + uci + "; Landsat MSS data of the Australian Centre for Remote Sensing, prepared by A. Srinivasan, 1993",
		License: mlbenchLicense,
		OpenML:  294, OpenMLNote: sameData + " (6,435, 36, 0.762); the bake-off also has 182 (satimage), the same data less 5 rows",
		Rows: 6435, Features: 36, Classes: 6,
	},
	{
		Name: "segment", Title: "Statlog Image Segmentation",
		Package: "weka", File: wekaDir + "segment-challenge.arff + segment-test.arff",
		Source:  "StatLog, from the " + uci + "; Vision Group, University of Massachusetts, 1990",
		License: wekaLicense,
		OpenML:  36, OpenMLNote: sameData + " (2,310, 19, 0.857); Weka's two files, 1,500 and 810 rows, concatenated in that order",
		Rows: 2310, Features: 19, Classes: 7,
	},
	{
		Name: "shuttle", Title: "Statlog Shuttle",
		Package: "r-cran-mlbench", File: mlbenchDir + "Shuttle.rda",
		Source:  "StatLog, from the " + uci + "; J. Catlett, University of Sydney (NASA)",
		License: mlbenchLicense,
		OpenML:  0, OpenMLNote: "not in the bake-off: its metadata has no dataset of 58,000 (or 43,500) rows",
		Rows: 58000, Features: 9, Classes: 7,
	},
	{
		Name: "sonar", Title: "Connectionist Bench (Sonar, Mines vs. Rocks)",
		Package: "r-cran-mlbench", File: mlbenchDir + "Sonar.rda",
		Source:  uci + "; R. P. Gorman, T. J. Sejnowski, Analysis of hidden units in a layered network trained to classify sonar targets, Neural Networks 1, 1988",
		License: mlbenchLicense,
		OpenML:  40, OpenMLNote: sameData + " (208, 60, 0.466)",
		Rows: 208, Features: 60, Classes: 2,
	},
	{
		Name: "soybean", Title: "Soybean (Large)",
		Package: "r-cran-mlbench", File: mlbenchDir + "Soybean.rda",
		Source:  uci + "; R. S. Michalski, R. L. Chilausky, Learning by being told and learning from examples, International Journal of Policy Analysis and Information Systems 4(2), 1980",
		License: mlbenchLicense,
		OpenML:  0, OpenMLNote: "not in the bake-off: its metadata has no dataset of 683 rows",
		Rows: 683, Features: 132, Classes: 19,
	},
	{
		Name: "vehicle", Title: "Statlog Vehicle Silhouettes",
		Package: "r-cran-mlbench", File: mlbenchDir + "Vehicle.rda",
		Source:  "StatLog, from the " + uci + "; J. P. Siebert, Vehicle recognition using rule based methods, Turing Institute TIRM-87-018, 1987",
		License: mlbenchLicense,
		OpenML:  54, OpenMLNote: sameData + " (846, 18, 0.742)",
		Rows: 846, Features: 18, Classes: 4,
	},
	{
		Name: "votes", Title: "Congressional Voting Records 1984",
		Package: "r-cran-mlbench", File: mlbenchDir + "HouseVotes84.rda",
		Source:  uci + "; J. Schlimmer, from the Congressional Quarterly Almanac, 98th Congress, 1984",
		License: mlbenchLicense,
		OpenML:  0, OpenMLNote: "not in the bake-off: its metadata has no dataset of 435 rows",
		Rows: 435, Features: 48, Classes: 2,
	},
	{
		Name: "vowel", Title: "Vowel Recognition (Deterding)",
		Package: "r-cran-mlbench", File: mlbenchDir + "Vowel.rda",
		Source:  uci + "; D. H. Deterding, Speaker normalisation for automatic speech recognition, PhD thesis, University of Cambridge, 1989",
		License: mlbenchLicense,
		OpenML:  307, OpenMLNote: "the same 990 rows and majority-class share (0.909); mlbench's copy has the speaker (a factor, 15 levels) and 9 of the 10 log-area ratios (the second is absent), where the bake-off's had 12 features",
		Rows: 990, Features: 24, Classes: 11,
	},
	{
		Name: "wine", Title: "Wine",
		Package: "python3-sklearn", File: sklearnDir + "wine_data.csv",
		Source:  uci + "; M. Forina et al., PARVUS, Institute of Pharmaceutical and Food Analysis, Genoa, 1991",
		License: sklearnLicense,
		OpenML:  187, OpenMLNote: sameData + " (178, 13, 0.601)",
		Rows: 178, Features: 13, Classes: 3,
	},
	{
		Name: "zoo", Title: "Zoo",
		Package: "r-cran-mlbench", File: mlbenchDir + "Zoo.rda",
		Source:  uci + "; R. S. Forsyth, 1990",
		License: mlbenchLicense,
		OpenML:  62, OpenMLNote: "the same 101 rows and majority-class share (0.594); the bake-off counted 17 features to mlbench's 16",
		Rows: 101, Features: 16, Classes: 7,
	},
}
